package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/simhash"
)

// An index over a store in memory (badgerstore.OpenIndex opens one over
// a Badger directory instead).
func ExampleNew() {
	ctx := context.Background()
	x, err := index.New(ctx, memstore.New(), &index.Options{AnalyzerID: "example/v1"})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	err = x.Add(ctx,
		index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1, Title: "First"},
		index.Doc{ID: "b", Fingerprint: 0x0123456789abcdee, ContentHash: 2, Title: "Second"}, // 1 bit from a
		index.Doc{ID: "c", Fingerprint: 0xfedcba9876543210, ContentHash: 3, Title: "Unrelated"},
	)
	if err != nil {
		log.Fatal(err)
	}
	ms, err := x.Near(ctx, 0x0123456789abcdef, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("%s distance %d similarity %.3f\n", m.ID, m.Distance, m.Similarity)
	}
	s, _ := x.Stats(ctx)
	fmt.Println(s.Docs, "documents,", s.Tables, "tables, analyzer", s.AnalyzerID)
	// Output:
	// a distance 0 similarity 1.000
	// b distance 1 similarity 0.984
	// 3 documents, 4 tables, analyzer example/v1
}

// Similar finds exact copies by their content hash, and near copies by
// their fingerprints or MinHash bands, confirmed by their sketches: a
// document whose fingerprint is close but whose text is not is left out.
func ExampleIndex_Similar() {
	ctx := context.Background()
	x, err := memstore.Open(ctx, &index.Options{MinContent: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	text := "the council voted to extend the tram line to the airport by 2030"
	edited := "the council voted to extend the tram line to the airport by 2031"
	unrelated := "a storm closed the mountain pass and stranded dozens of trucks"
	err = x.Add(ctx,
		index.Doc{ID: "copy", Fingerprint: 0xff00, ContentHash: 42, Sketch: minhash.New(text)},
		index.Doc{ID: "edit", Fingerprint: 0xff03, ContentHash: 43, Sketch: minhash.New(edited)},
		index.Doc{ID: "lookalike", Fingerprint: 0xff01, ContentHash: 44, Sketch: minhash.New(unrelated)},
	)
	if err != nil {
		log.Fatal(err)
	}
	q := index.Doc{Fingerprint: 0xff00, ContentHash: 42, Sketch: minhash.New(text)}
	ms, err := x.Similar(ctx, &q, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("%s exact=%v distance=%d content>0.8=%v\n", m.ID, m.Exact, m.Distance, m.Content > 0.8)
	}
	// Output:
	// copy exact=true distance=0 content>0.8=true
	// edit exact=false distance=2 content>0.8=true
}

// Load fills a new index with an archive of fingerprints, such as
// "id<TAB>hex" lines made by another SimHash tool.
func ExampleIndex_Load() {
	ctx := context.Background()
	x, err := memstore.Open(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	archive := []string{"2019/0001\tfeb6372a8750eb1d", "2019/0002\tfeb6372a8750eb1c", "2019/0003\t0000ffff0000ffff"}
	n, err := x.Load(ctx, func(yield func(index.Doc) bool) {
		for _, line := range archive {
			id, hex, _ := strings.Cut(line, "\t")
			fp, err := simhash.Parse(hex)
			if err != nil {
				log.Fatal(err)
			}
			if !yield(index.Doc{ID: id, Fingerprint: fp}) {
				return
			}
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	ms, err := x.Near(ctx, 0xfeb6372a8750eb1d, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "loaded;", len(ms), "within 3 bits of 2019/0001:", ms[0].ID, ms[1].ID)
	// Output:
	// 3 loaded; 2 within 3 bits of 2019/0001: 2019/0001 2019/0002
}

// DeleteFound deletes what the index holds and names what it does not,
// as rm does; package report writes the deletion and the statistics of
// the index for people (neardup delete and stats print these).
func ExampleIndex_DeleteFound() {
	ctx := context.Background()
	x, err := memstore.Open(ctx, &index.Options{AnalyzerID: "example/v1"})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, index.Doc{ID: "a", Fingerprint: 1, ContentHash: 1}, index.Doc{ID: "b", Fingerprint: 2, ContentHash: 2}); err != nil {
		log.Fatal(err)
	}
	d, err := x.DeleteFound(ctx, "a", "nope", "a")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("deleted %q, missing %q\n", d.Deleted, d.Missing)
	report.WriteDeletion(os.Stdout, &d, "the archive")
	s, err := x.Describe(ctx, true)
	if err != nil {
		log.Fatal(err)
	}
	report.WriteStats(os.Stdout, &s, "the archive")
	// Output:
	// deleted ["a"], missing ["nope"]
	// deleted 1 document from the archive; the index holds 1 document
	// index         the archive
	// documents     1
	// layout        4 blocks, answers distances up to 3, 4 tables
	// analyzer      example/v1
	// format        1
	// text          0 of 1 document keep their text: 0 B, 0 B compressed
}
