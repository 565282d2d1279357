package dedup

import (
	"context"
	"slices"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/minhash"
)

// TestCheck: what Check reports and adds, article by article, against
// an archive holding "a".
func TestCheck(t *testing.T) {
	ctx := context.Background()
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(i + 1)
	}
	a := index.Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 1, Sketch: sk}
	tests := []struct {
		name              string
		doc               index.Doc
		add               bool
		matches           []string
		self, same, added bool
		docs              int64 // in the archive afterwards
	}{
		{"new", index.Doc{ID: "b", Fingerprint: 0xfedcba9876543210, ContentHash: 2}, false, nil, false, false, false, 1},
		{"new, added", index.Doc{ID: "b", Fingerprint: 0xfedcba9876543210, ContentHash: 2}, true, nil, false, false, true, 2},
		{"exact copy under another id", index.Doc{ID: "c", Fingerprint: a.Fingerprint, ContentHash: 1, Sketch: sk}, true, []string{"a"}, false, false, false, 1},
		{"near copy (2 bits)", index.Doc{ID: "c", Fingerprint: a.Fingerprint ^ 0x11, ContentHash: 3, Sketch: sk}, true, []string{"a"}, false, false, false, 1},
		{"itself", a, true, nil, true, true, false, 1},
		{"another text under its id", index.Doc{ID: "a", Fingerprint: 0xfedcba9876543210, ContentHash: 4}, true, nil, true, false, false, 1},
		{"invalid id", index.Doc{ID: "", Fingerprint: 0xfedcba9876543210, ContentHash: 5}, true, nil, false, false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := memstore.Open(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if err := x.Add(ctx, a); err != nil {
				t.Fatal(err)
			}
			got, err := Check(ctx, x, &tt.doc, 3, tt.add)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range got.Matches {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, tt.matches) || (got.Self != nil) != tt.self || got.Same != tt.same || got.Added != tt.added {
				t.Errorf("Check = matches %v, self %t, same %t, added %t; want %v, %t, %t, %t",
					ids, got.Self != nil, got.Same, got.Added, tt.matches, tt.self, tt.same, tt.added)
			}
			st, err := x.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Docs != tt.docs {
				t.Errorf("archive holds %d documents, want %d", st.Docs, tt.docs)
			}
		})
	}
}
