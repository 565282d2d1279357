package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
)

// TestRunOrder: items reach f in input order whatever the number of
// workers, bad records and too-short articles among them, with their
// errors; Check vets records before analysis.
func TestRunOrder(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	var lines []string
	for i := range 40 {
		switch i % 10 {
		case 3:
			lines = append(lines, `{"id":"bad","text":42}`)
		case 7:
			lines = append(lines, fmt.Sprintf(`{"id":"short%d","text":"你好"}`, i))
		case 9:
			lines = append(lines, fmt.Sprintf(`{"id":"veto%d","text":%q}`, i, testfixtures.EN))
		default:
			lines = append(lines, fmt.Sprintf(`{"id":"a%d","text":%q}`, i, testfixtures.ZH))
		}
	}
	veto := errors.New("vetoed")
	check := func(r *input.Record) error {
		if strings.HasPrefix(r.ID, "veto") {
			return veto
		}
		return nil
	}
	for _, workers := range []int{1, 3} {
		r := input.NewReader([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")), nil)
		var got []string
		err := Run(context.Background(), r, a, &Options{Workers: workers, Check: check}, func(it *Item) error {
			var re *input.RecordError
			switch {
			case errors.As(it.Err, &re):
				got = append(got, fmt.Sprintf("%d:rejected", it.Seq))
			case errors.Is(it.Err, neardup.ErrTooShort):
				got = append(got, fmt.Sprintf("%d:short", it.Seq))
			case errors.Is(it.Err, veto):
				got = append(got, fmt.Sprintf("%d:veto", it.Seq))
			case it.Err == nil && it.Analysis != nil && it.Record.ID == fmt.Sprintf("a%d", it.Seq):
				got = append(got, fmt.Sprintf("%d:ok", it.Seq))
			default:
				got = append(got, fmt.Sprintf("%d:unexpected %q %v", it.Seq, it.Record.ID, it.Err))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range 40 {
			want = append(want, fmt.Sprintf("%d:%s", i, map[int]string{3: "rejected", 7: "short", 9: "veto"}[i%10]))
			if w := want[len(want)-1]; strings.HasSuffix(w, ":") {
				want[len(want)-1] = w + "ok"
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%d workers:\n%s\nwant\n%s", workers, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}

// TestRunStops: an error from f stops the run and is returned, and so
// does the end of the context.
func TestRunStops(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	text := strings.Repeat(fmt.Sprintf(`{"text":%q}`+"\n", testfixtures.EN), 500)
	stop := errors.New("stop")
	n := 0
	err := Run(context.Background(), input.NewReader([]string{"-"}, strings.NewReader(text), nil), a, &Options{Workers: 2}, func(*Item) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Errorf("Run = %v after %d items, want stop after 10", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Run(ctx, input.NewReader([]string{"-"}, strings.NewReader(text), nil), a, nil, func(*Item) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v, want context.Canceled", err)
	}
}
