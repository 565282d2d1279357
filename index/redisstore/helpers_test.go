package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/redistest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

func TestMain(m *testing.M) {
	// The fault tests stop nodes on purpose; go-redis would log every
	// refused dial.
	redis.SetLogger(&logging.VoidLogger{})
	redistest.Main(m)
}

// open opens a new archive of its own on the package's shared cluster
// (the shape of indextest.Run's opener; conformance_test.go passes it).
func open(t testing.TB, opts *Options) *Store {
	t.Helper()
	c := redistest.Shared(t)
	s, err := Open(context.Background(), c.URL(redistest.Name(t)), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openIndex opens an index over a new archive of its own.
func openIndex(t testing.TB, opts *Options, iopts *index.Options) (*index.Index, *Store) {
	t.Helper()
	s := open(t, opts)
	x, err := index.New(context.Background(), s, iopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, s
}

// doc returns a document with everything set, its sketch and content
// hash from seed.
func doc(id string, fp simhash.Fingerprint, seed uint64) index.Doc {
	r := rand.New(rand.NewPCG(seed, 7))
	d := index.Doc{
		ID: id, Fingerprint: fp, ContentHash: r.Uint64(),
		Title: "title of " + id, Added: time.Unix(1.7e9, int64(seed%1000)).UTC(),
		Job: "job", Seq: int64(seed % 1e9),
	}
	for k := 0; k < 4; k++ {
		d.Keywords = append(d.Keywords, tfidf.Keyword{Word: fmt.Sprintf("w%d", r.IntN(1000)), Weight: float64(k + 1)})
	}
	for k := range d.Sketch {
		d.Sketch[k] = uint16(r.Uint32()) | 1
	}
	return d
}

// flip returns fp with n distinct random bits flipped.
func flip(r *rand.Rand, fp simhash.Fingerprint, n int) simhash.Fingerprint {
	for _, b := range r.Perm(64)[:n] {
		fp ^= 1 << b
	}
	return fp
}

// edit returns a copy of d's sketch with n of its 64 values changed.
func edit(r *rand.Rand, s minhash.Sketch, n int) minhash.Sketch {
	for _, i := range r.Perm(len(s))[:n] {
		s[i] ^= uint16(r.Uint32()) | 1
	}
	return s
}
