package badgerstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
)

// An index in a Badger directory keeps its documents, layout and
// analyzer across opens.
func ExampleOpenIndex() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "neardup-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "idx")

	x, err := badgerstore.OpenIndex(ctx, path, nil, &index.Options{Blocks: 5, MaxDistance: 3, AnalyzerID: "example/v1"})
	if err != nil {
		log.Fatal(err)
	}
	err = x.Add(ctx,
		index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1},
		index.Doc{ID: "b", Fingerprint: 0x0123456789abcdee, ContentHash: 1},
	)
	if err != nil {
		log.Fatal(err)
	}
	if err := x.Close(); err != nil {
		log.Fatal(err)
	}

	// Reopened read-only, with the recorded options.
	x, err = badgerstore.OpenIndex(ctx, path, &badgerstore.Options{ReadOnly: true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	s, _ := x.Stats(ctx)
	ids, _ := x.Exact(ctx, 1)
	fmt.Println(s.Docs, "documents,", s.Blocks, "blocks,", s.Tables, "tables, analyzer", s.AnalyzerID)
	fmt.Println("content hash 1:", ids)
	// Output:
	// 2 documents, 5 blocks, 10 tables, analyzer example/v1
	// content hash 1: [a b]
}
