package index_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "neardup-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	x, err := index.Open(filepath.Join(dir, "idx"), &index.Options{AnalyzerID: "example/v1"})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	err = x.Add(
		index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1, Title: "First"},
		index.Doc{ID: "b", Fingerprint: 0x0123456789abcdee, ContentHash: 2, Title: "Second"}, // 1 bit from a
		index.Doc{ID: "c", Fingerprint: 0xfedcba9876543210, ContentHash: 3, Title: "Unrelated"},
	)
	if err != nil {
		log.Fatal(err)
	}
	ms, err := x.Near(0x0123456789abcdef, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("%s distance %d similarity %.3f\n", m.ID, m.Distance, m.Similarity)
	}
	s, _ := x.Stats()
	fmt.Println(s.Docs, "documents,", s.Tables, "tables, analyzer", s.AnalyzerID)
	// Output:
	// a distance 0 similarity 1.000
	// b distance 1 similarity 0.984
	// 3 documents, 4 tables, analyzer example/v1
}

// Load fills a new index with an archive of fingerprints, such as
// "id<TAB>hex" lines made by another SimHash tool.
func ExampleIndex_Load() {
	dir, err := os.MkdirTemp("", "neardup-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "idx"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()

	archive := []string{"2019/0001\tfeb6372a8750eb1d", "2019/0002\tfeb6372a8750eb1c", "2019/0003\t0000ffff0000ffff"}
	n, err := x.Load(func(yield func(index.Doc) bool) {
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
	ms, err := x.Near(0xfeb6372a8750eb1d, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "loaded;", len(ms), "within 3 bits of 2019/0001:", ms[0].ID, ms[1].ID)
	// Output:
	// 3 loaded; 2 within 3 bits of 2019/0001: 2019/0001 2019/0002
}

func ExampleMemory_Similar() {
	m, err := index.NewMemory(&index.Options{MinContent: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	text := "the council voted to extend the tram line to the airport by 2030"
	edited := "the council voted to extend the tram line to the airport by 2031"
	unrelated := "a storm closed the mountain pass and stranded dozens of trucks"
	m.Add(
		index.Doc{ID: "copy", Fingerprint: 0xff00, ContentHash: 42, Sketch: simhash.NewSketch(text)},
		index.Doc{ID: "edit", Fingerprint: 0xff03, ContentHash: 43, Sketch: simhash.NewSketch(edited)},
		index.Doc{ID: "lookalike", Fingerprint: 0xff01, ContentHash: 44, Sketch: simhash.NewSketch(unrelated)},
	)
	q := index.Doc{Fingerprint: 0xff00, ContentHash: 42, Sketch: simhash.NewSketch(text)}
	ms, err := m.Similar(&q, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range ms {
		fmt.Printf("%s exact=%v distance=%d content>0.8=%v\n", x.ID, x.Exact, x.Distance, x.Content > 0.8)
	}
	// Output:
	// copy exact=true distance=0 content>0.8=true
	// edit exact=false distance=2 content>0.8=true
}

func ExampleExplain() {
	a := []tfidf.Keyword{{Word: "tram", Weight: 3}, {Word: "airport", Weight: 2}, {Word: "council", Weight: 1}}
	b := []tfidf.Keyword{{Word: "airport", Weight: 2.5}, {Word: "tram", Weight: 1}, {Word: "storm", Weight: 2}}
	e := index.Explain(a, b)
	for _, s := range e.Shared {
		fmt.Printf("shared %s %.1f %.1f\n", s.Word, s.WeightA, s.WeightB)
	}
	fmt.Println("only a:", e.OnlyA)
	fmt.Println("only b:", e.OnlyB)
	// Output:
	// shared airport 2.0 2.5
	// shared tram 3.0 1.0
	// only a: [{council 1}]
	// only b: [{storm 2}]
}
