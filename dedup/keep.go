package dedup

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/input"
)

// KeepPolicy says which member of each cluster the outputs call the
// original and keep (Outputs.Keep): the zero value keeps the first seen,
// as the decision does. The decision itself never changes: a run's
// verdicts, and what an archive (--index) stores as originals, are of
// the first seen; the policy is applied to the clusters when the run
// ends and chooses what --unique, --pairs, --clusters and --annotate
// say. Ties go to the first seen, so the choice is deterministic.
type KeepPolicy struct {
	// Kind is "first" (or ""), "longest" (the most characters of text),
	// "newest", "oldest" (the greatest or least date or number in Field)
	// or "max" (the greatest number in Field).
	Kind  string
	Field string // the JSONL field of newest, oldest and max
}

// ParseKeepPolicy parses first, longest, newest:FIELD, oldest:FIELD or
// max:FIELD.
func ParseKeepPolicy(s string) (KeepPolicy, error) {
	kind, field, hasField := strings.Cut(s, ":")
	switch kind {
	case "", "first", "longest":
		if hasField {
			return KeepPolicy{}, fmt.Errorf("keep policy %q: %s takes no field", s, kind)
		}
		if kind == "" {
			kind = "first"
		}
		return KeepPolicy{Kind: kind}, nil
	case "newest", "oldest", "max":
		if field == "" {
			return KeepPolicy{}, fmt.Errorf("keep policy %q: want %s:FIELD", s, kind)
		}
		return KeepPolicy{Kind: kind, Field: field}, nil
	}
	return KeepPolicy{}, fmt.Errorf("keep policy %q: want first, longest, newest:FIELD, oldest:FIELD or max:FIELD", s)
}

// First reports whether p keeps the first seen.
func (p KeepPolicy) First() bool { return p.Kind == "" || p.Kind == "first" }

func (p KeepPolicy) String() string {
	if p.Field != "" {
		return p.Kind + ":" + p.Field
	}
	if p.Kind == "" {
		return "first"
	}
	return p.Kind
}

// key ranks rec: the member with the greatest key is kept. ok is false
// when rec has no value for the policy's field (a missing field, or
// one that is not a date or number): such a member is kept only when
// no other has a value. The field is read from a JSONL record's line;
// for other records (Parquet rows, WARC records, whole files) "id" and
// "title" are their ID and title, and other fields are missing.
func (p KeepPolicy) key(rec *input.Record) (key float64, ok bool) {
	switch p.Kind {
	case "longest":
		return float64(utf8.RuneCountInString(rec.Text)), true
	case "newest", "oldest", "max":
		var s string
		if rec.Raw != nil {
			raw, str, err := input.JSONField(rec.Raw, p.Field)
			if err != nil || raw == nil {
				return 0, false
			}
			if raw[0] == '"' {
				s = str
			} else {
				s = string(raw)
			}
		} else {
			switch p.Field {
			case "id":
				s = rec.ID
			case "title":
				s = rec.Title
			default:
				return 0, false
			}
		}
		v, ok := p.value(strings.TrimSpace(s))
		if ok && p.Kind == "oldest" {
			v = -v
		}
		return v, ok
	}
	return 0, false
}

// dateLayouts are the date formats newest and oldest read.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02", "2006/01/02"}

// value reads a number (any policy) or a date (newest and oldest: its
// Unix time in seconds).
func (p KeepPolicy) value(s string) (float64, bool) {
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, true
	}
	if p.Kind == "max" {
		return 0, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return float64(t.UnixNano()) / 1e9, true
		}
	}
	return 0, false
}

// better reports whether a member ranked (k, ok) beats the best so far
// (bk, bok); the first seen wins ties, so members are offered in order.
func better(k float64, ok bool, bk float64, bok bool) bool {
	return ok && (!bok || k > bk)
}
