package dedup

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/input"
)

// parquetOut writes a unique or annotate file in Parquet. Its columns
// are those of the first record written: a Parquet record read with
// input.Options.ParquetRows gives every column of its input, types
// kept (a unique file: the input's schema as it is; an annotate file:
// the input's top-level columns and a group "neardup" of the
// Annotation's, in the order of names, as Parquet groups order their
// fields), and every record after it must come from a file of the same
// schema; any other record gives the columns id, title and text (and
// the Annotation's, flat, in an annotate file).
type parquetOut struct {
	out      io.Writer
	annotate bool

	articles  *parquet.GenericWriter[articleRow]
	annotated *parquet.GenericWriter[annotatedRow]

	rows   *parquet.Writer
	schema *parquet.Schema // the input's, of the first record
	source string          // the first record's
	remap  []int           // input leaf column -> output column
	ann    [6]int          // output columns of verdict, cluster, member, similarity, content, reason
	row    parquet.Row
}

// annotationNode is the "neardup" group of an annotate file of rows.
var annotationNode = parquet.SchemaOf(Annotation{})

func newParquetOut(out io.Writer, annotate bool) *parquetOut {
	return &parquetOut{out: out, annotate: annotate}
}

// write writes rec, with its annotation a in an annotate file.
func (p *parquetOut) write(rec *input.Record, a *Annotation) error {
	if p.rows == nil && p.articles == nil && p.annotated == nil {
		if rec.Row != nil && rec.Schema != nil {
			if err := p.startRows(rec); err != nil {
				return err
			}
		} else if p.annotate {
			p.annotated = newParquetWriter[annotatedRow](p.out)
		} else {
			p.articles = newParquetWriter[articleRow](p.out)
		}
	}
	switch {
	case p.articles != nil:
		_, err := p.articles.Write([]articleRow{{ID: rec.ID, Title: optional(rec.Title), Text: rec.Text}})
		return err
	case p.annotated != nil:
		_, err := p.annotated.Write([]annotatedRow{{ID: rec.ID, Title: optional(rec.Title), Text: rec.Text, Annotation: *a}})
		return err
	}
	if rec.Row == nil || rec.Schema == nil {
		return fmt.Errorf("%s: a Parquet output holds the columns of %s, the first record's; this record has none (not Parquet, or rejected)", rec.Location(), p.source)
	}
	if rec.Schema != p.schema && !parquet.EqualNodes(rec.Schema, p.schema) {
		return fmt.Errorf("%s: its columns differ from those of %s, the first record's: a Parquet output holds one schema", rec.Source, p.source)
	}
	if !p.annotate {
		_, err := p.rows.WriteRows([]parquet.Row{rec.Row})
		return err
	}
	p.row = p.row[:0]
	for _, v := range rec.Row {
		p.row = append(p.row, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), p.remap[v.Column()]))
	}
	optString := func(s string) parquet.Value {
		if s == "" {
			return parquet.NullValue()
		}
		return parquet.ValueOf(s).Level(0, 1, 0)
	}
	optFloat := func(f float64) parquet.Value {
		if f == 0 {
			return parquet.NullValue()
		}
		return parquet.ValueOf(f).Level(0, 1, 0)
	}
	for i, v := range []parquet.Value{parquet.ValueOf(a.Verdict), optString(a.Cluster), optString(a.Member),
		optFloat(a.Similarity), optFloat(a.Content), optString(a.Reason)} {
		p.row = append(p.row, v.Level(0, v.DefinitionLevel(), p.ann[i]))
	}
	slices.SortStableFunc(p.row, func(x, y parquet.Value) int { return x.Column() - y.Column() })
	_, err := p.rows.WriteRows([]parquet.Row{p.row})
	return err
}

// startRows starts writing the rows of rec's schema.
func (p *parquetOut) startRows(rec *input.Record) error {
	p.schema, p.source = rec.Schema, rec.Source
	schema := rec.Schema
	if p.annotate {
		fields := parquet.Group{}
		for _, f := range rec.Schema.Fields() {
			fields[f.Name()] = f
		}
		if _, ok := fields["neardup"]; ok {
			return fmt.Errorf("%s has a column \"neardup\": the annotate file's group of that name would replace it", rec.Source)
		}
		fields["neardup"] = annotationNode
		schema = parquet.NewSchema(rec.Schema.Name(), fields)
		cols := rec.Schema.Columns()
		p.remap = make([]int, len(cols))
		for i, path := range cols {
			leaf, ok := schema.Lookup(path...)
			if !ok {
				return errors.New("dedup: annotate schema lacks input column " + fmt.Sprint(path))
			}
			p.remap[i] = leaf.ColumnIndex
		}
		for i, name := range []string{"verdict", "cluster", "member", "similarity", "content", "reason"} {
			leaf, ok := schema.Lookup("neardup", name)
			if !ok {
				return errors.New("dedup: annotate schema lacks neardup." + name)
			}
			p.ann[i] = leaf.ColumnIndex
		}
	}
	p.rows = parquet.NewWriter(p.out, schema, parquet.Compression(&parquet.Zstd))
	return nil
}

// Close ends the file: a file of no record has the columns id, title
// and text (and the Annotation's).
func (p *parquetOut) Close() error {
	switch {
	case p.rows != nil:
		return p.rows.Close()
	case p.annotated != nil:
		return p.annotated.Close()
	case p.articles != nil:
		return p.articles.Close()
	case p.annotate:
		return newParquetWriter[annotatedRow](p.out).Close()
	}
	return newParquetWriter[articleRow](p.out).Close()
}
