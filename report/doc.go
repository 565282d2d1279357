// Package report owns the forms neardup's results take for machines and
// for people: the JSON that neardup --json prints and the HTTP service
// answers, and the text the command writes. Each type is one result:
// Summary (a dedup run), URLSummary (a URL dedup run), Check and Match
// (one article checked against an archive; CheckSummary, a check run),
// Fingerprint (a bare fingerprint checked), Comparison (two articles
// compared), Analysis (one article's fingerprint and keywords) and
// AddSummary (an archive filled). Each has its JSON in its struct tags
// (or MarshalJSON) and writes its own text (WriteText), so that the
// command and the service only choose.
//
// A report holds data, not decisions: the packages that decide (dedup,
// urldedup) fill the reports, and report depends on none of them, so
// that a newcomer looking for the JSON of POST /v1/check finds it here
// and the decisions' API stays the decisions'.
package report
