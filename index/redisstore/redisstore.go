// Package redisstore keeps an index.Store in a Redis Cluster (Redis 7.0
// or later), so that an archive outlives any one process and many
// processes can read and write it at once. An archive is named by a URL,
//
//	redis://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]/NAME
//	rediss://...   (TLS)
//
// whose hosts are seed nodes of the cluster and whose NAME prefixes every
// key of the archive, so that several archives share one cluster (see
// ParseURL).
//
// # Keys and values
//
// Every key is NAME ':' and one kind byte, then binary; no key has a
// hash tag ({...}), so an archive's keys spread over every slot. With
// the default 4-block layout and bucket bits B = 16, in an archive
// created since 2026-11-27 (posting levels, see keys.go; L is 0x80 |
// the level l of the document's number, which has 2^(10+l) buckets):
//
//	t table L BUCKET → packed postings: match (1 or 0) fingerprint (8) number (2 to 5)
//	b band  L BUCKET → packed postings: match (6 or 7) number (2 to 5)
//	c 0     L BUCKET → packed postings: match (6 or 7) number (2 to 5)
//	r HASH          → number (5), then the record (index's format; in a
//	                  lean archive index.BatchRecord), HASH the first 16
//	                  bytes of the ID's SHA-256
//
// and in an archive created before (flat buckets, records by ID):
//
//	t table BUCKET  → packed postings: fingerprint (8) number (5)
//	b band  BUCKET  → packed postings: match (6) number (5)
//	c 0     BUCKET  → packed postings: match (6) number (5)
//	r ID            → number (5), then the record (index's format)
//
// and in both:
//
//	n NUMBER/128    → hash {NUMBER%128 (1 byte) → ID}
//	s NUMBER/128    → hash {NUMBER%128 (1 byte) → state} (index.Ingest's documents)
//	N               → the last document number handed out (INCRBY)
//	D               → the number of documents (INCRBY)
//	m NAME          → the values of Claim ("format", "layout", "analyzer")
//	p 96 LEVEL BUCKET → packed postings: match (2) number (5) (passage keys, see keys.go)
//	M epoch|bucketbits|records|passages|recordkeys → the store's own settings
//	e DECIMAL       → hash {e: epoch}, one in every slot
//	Z               → sorted set of the largest posting keys
//
// A posting key ("bucket") holds fixed-size records appended with APPEND
// and read with GET. A table key's bucket is its value's top bucket bits
// (all 16 bits with the default layout, so its records are exactly the
// key's postings and carry the whole fingerprint); a band value or
// content hash is first mixed (a bijection: MinHash minima are small
// numbers more often than not) and its top bucket bits pick the bucket,
// the other bits (the match) are in the record, and Postings keeps the
// records whose match is the key's. So a bucket holds about
// documents/2^bits records: bucket bits are chosen once per archive for
// its expected size (Options.BucketBits, recorded). Passage keys
// (package reuse, about 57 a document) are the exception: their buckets
// are chosen by the document's number too, in levels whose bucket bits
// grow with the archive (keys.go, Passage levels), so that one holds
// about one posting per passage of a document at any size; archives
// created before those levels keep 2^bits flat passage buckets.
//
// A bucket of a posting level holds numbers of that level only, so its
// records carry the number less the level's first, in the bytes the
// level's size needs (2 at level 0, 3 up to level 8 with B = 16).
// Posting levels keep about 64 postings in a bucket at any size of the
// archive, and full levels are compacted: measured at 10^6 lean
// documents (bench/redisarchive -real -lean), postings take 1.3 bytes
// of memory a byte of data and 280 bytes a document, against 2.1 and
// 506 in flat buckets of 2^16, and a query reads one bucket per key and
// level (5 levels at 10^6).
//
// Why the flat layout's choices, measured at 10^6 documents on 3 masters (see
// bench/redisarchive and docs/capacity.md): a bucket costs its data times
// about 2 at 15 postings a bucket and 1.4 at 60 (each Redis key has ~70
// bytes of its own, and APPEND grows by doubling), against 358 bytes a
// posting for sets of 16-byte members; a whole document with a sketch
// and a 341-byte record costs 1044 bytes (892 at 60 postings a bucket),
// of which the record is 472, the 16 bands 246 to 377, the 4 tables 92
// to 105. Numbers instead of IDs in postings save 21 × the ID's length
// a document for one HMGET per candidate; table postings carry the whole
// fingerprint (2 bytes more than the 48 bits the key does not give)
// because the store does not know which bits a table key took, so a
// posting is right whatever the layout.
//
// Postings carry a document number (5 bytes), not the ID: numbers are
// handed out by INCRBY, one per written record (a replaced document gets
// a new one), and resolved to IDs through the n hashes, which Redis keeps
// as listpacks of about 4 bytes per entry besides the ID when IDs are at
// most 64 bytes. A posting whose number no longer resolves (its document
// was deleted or replaced) is dropped by Postings, so a posting's
// fingerprint is always that of the live document it names.
//
// # Reads
//
// Postings reads all its keys in one pipeline (GET per bucket, a
// leveled key's at every level it knows of, and N; go-redis splits it
// by node), then, if N shows levels it did not know of, their buckets
// in another, and resolves the numbers it found in a second (HMGET per
// number hash; PostingsLimit resolves at most a limit a key, for reuse's
// stop rule). Records is one pipeline of GETs. So Similar
// is three round trips, Near two. Each of these pipelines also reads the
// marker of one slot of every master (see Faults).
//
// # Writes, atomicity and durability
//
// Apply takes a batch of numbers with one INCRBY, then, for replaced and
// deleted documents, removes their number from their old postings (a
// function that rewrites each bucket without it) and from the number
// hash; then it writes the numbers (one HSET per number hash) and the
// records (SET ... GET, whose answer says whether the document is new),
// then the postings (APPEND), and last adds the new documents to the
// count (INCRBY; an Apply that fails part way may leave the count off by
// the documents it wrote). Each step is a pipeline (the new documents'
// in chunks of 256, four at once) and waits for the one before. The keys
// of one document lie in different slots, so a document's write is not
// atomic; but a posting a reader sees always resolves to its document
// and record, and because a new record always gets a new number and the
// old number is unlinked first, a posting never lends a document a
// fingerprint it no longer has. An Apply that fails part way is
// completed by applying the batch again (a repeated posting is read
// once).
//
// The store is an index.Shared (shared.go), for index.Ingest, the
// race-free deduplicating ingest of many writers at once: AppendRead is
// Apply for new documents (SET NX: it never replaces a record) that
// also returns, under each key, the postings that were there before the
// document's own, and sets the document's state pending; Reappend
// completes an AppendRead cut short, keeping the document's number;
// Mark and Decide change a state with the two functions of a second
// library (neardup_ingest_v1), each on the one hash that holds it, so
// atomically; States reads states and IDs. Compact rewrites the buckets
// at their exact size (APPEND grows strings by doubling). ClusterStats
// adds the cluster's memory and the largest buckets to Stats.
//
// When Apply returns, its writes have been executed by the masters, in
// memory. Whether they survive a crash is the cluster's configuration:
// the clusters scripts/redis-cluster starts keep nothing on disk
// (--save ” --appendonly no), so a master that crashes loses its slots'
// data (detected, see Faults). With replicas, Options.WaitReplicas makes
// Apply send WAIT to every master it wrote to and fail unless that many
// replicas acknowledged the writes, so that a failover loses nothing
// acknowledged (WAIT is not a consensus: a replica promoted in the
// middle can still miss a write).
//
// # Retries and failovers
//
// A command that fails with a transient error (a connection refused or
// reset, EOF, a timeout, MOVED or ASK past go-redis's redirections,
// CLUSTERDOWN, TRYAGAIN, LOADING, MASTERDOWN, READONLY) is tried again
// by exec, with backoffs of 100 ms to 1 s and go-redis's view of the
// cluster reloaded, for up to Options.RetryWindow (the URL's
// retry_window; DefaultRetryWindow, 30 s; 0 turns it off) after its
// first failure, so that writers and readers wait through a failover
// (a replica takes over a few seconds after its master stops: cluster-
// node-timeout, then an election) and go on. A canceled context stops
// the retries at once. Errors that are not transient (a lost marker, a
// WAIT short of replicas, a wrong type) are returned at once.
//
// A retried command may have been executed already, its reply lost, and
// go-redis itself sends a failed pipeline again; so every write the
// store sends is safe to repeat:
//
//   - INCRBY of the document numbers (N, numberApply): a repeat hands
//     out a new range and the first is never used, a gap; numbers need
//     only be unique.
//   - HSET of a number's ID (n) or of a state to pending (s)
//     (writeRecords): the same value again; nothing else writes them
//     before the document's postings are appended, so no later state is
//     overwritten.
//   - SET ... GET [NX] of a record (writeRecords): a repeat answers with
//     the record it wrote, whose number is the write's own; apply takes
//     that as its write (applyBatch.mine), not as a taken ID or a stray.
//   - APPEND of a posting (appendPostings): not idempotent, so exec
//     sends it with go-redis's retries off and, before trying one again, reads the
//     bucket and appends only if the posting (whose number is unique)
//     is not there; its answer is then where the posting ends (and with
//     WaitReplicas an empty APPEND to the bucket is WAITed for). Only the
//     writer of a document appends its postings, so this does not race.
//   - the functions: neardup_v1_rmnum removes what is there (a repeat
//     removes nothing), neardup_v1_compact rewrites a bucket as it is,
//     neardup_ingest_v1_mark adds a marker only if absent and
//     neardup_ingest_v1_decide changes only a pending state, so both
//     return the same state when repeated; the Claim script and the
//     markers are HSETNX, SET XX (Decide's records) and HDEL, GETDEL,
//     ZADD GT the same when repeated.
//   - INCRBY of the document count (D, finishApply), and GETDEL of a
//     deleted record (unlinkApply): a repeat after a lost reply makes the
//     count (Stats.Docs) off by the batch's documents. The count is a statistic; no decision reads it.
//
// With Options.WaitReplicas, a failover leaves the promoted master
// without a replica until one is attached again (the old master,
// restarted, becomes its replica): WAIT then gets fewer
// acknowledgements than asked, which is not transient, and Apply,
// AppendRead, Mark and Decide fail with "N of M replicas acknowledged
// the writes", the writes executed but not acknowledged. The writers
// stop rather than go on without the durability asked for; run them
// again (a repeated batch completes what the first wrote, see
// index.Ingest) once the replicas are back, or without wait_replicas.
//
// # Faults
//
// Open fails, having written nothing, when the cluster cannot be reached
// or is not ok. An archive is created with a random epoch and a marker
// in every one of the 16384 slots; Open checks them all, and so does
// ClusterStats, and every pipeline of Postings, Records, Apply and Stats
// also reads the marker of one slot of every master (3 more commands).
// So a master that restarted empty is reported (index.ErrCorrupt,
// naming its slots and address) instead of passing for a smaller
// archive; Apply checks before it writes.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/index"
)

// Defaults and limits.
const (
	DefaultBucketBits = 16
	MinBucketBits     = 8
	MaxBucketBits     = 32

	DefaultWaitTimeout = time.Second

	// rangesMaxAge is how long Open's view of which master serves which
	// slots is used for the per-pipeline marker checks before it is
	// read again.
	rangesMaxAge = 5 * time.Second
)

// Options configure Open. Nonzero fields override the URL's parameters.
type Options struct {
	// BucketBits is how many bits of a key's value the Redis key of its
	// bucket carries (see the package doc), 8 to 32, chosen when the
	// archive is created and recorded; zero means the recorded value, or
	// DefaultBucketBits for a new archive. Aim for tens of records per
	// bucket: about log2(expected documents / 16).
	BucketBits int

	// WaitReplicas, when positive, makes Apply wait until that many
	// replicas of each master it wrote to acknowledge the writes (WAIT),
	// for at most WaitTimeout (zero means DefaultWaitTimeout).
	WaitReplicas int
	WaitTimeout  time.Duration

	// RetryWindow is how long a command that failed with a transient
	// error (a connection refused or reset, a timeout, CLUSTERDOWN,
	// TRYAGAIN, LOADING, MOVED: a failover under way) is tried again,
	// from its first failure; zero means the URL's retry_window or
	// DefaultRetryWindow, negative means no retries but go-redis's own.
	// A canceled context stops the retries at once.
	RetryWindow time.Duration

	// ReadOnly opens an existing archive without writing: Open does not
	// create one (index.ErrNotFound when there is none), Apply and Claim
	// of a new value fail with index.ErrReadOnly.
	ReadOnly bool

	// Cluster, if not nil, may change go-redis's options before the
	// client is made (timeouts, pool sizes, TLS).
	Cluster func(*redis.ClusterOptions)

	// Lean makes a new archive keep its records lean
	// (index.BatchRecord): without the title, keywords and kept text,
	// which only explain a match to a person, and with an 8-bit digest
	// of each sketch band in place of the 64 sketch values when the
	// record has the confirmation sketch (records written before
	// 2026-11-27's band digests keep the 64 values; both are read).
	// For an archive of batch runs, which explain no match: Get, check
	// and serve show its documents and matches without them. The choice is recorded when the archive is created
	// ('M' "records"); an archive opened later keeps what it was created
	// with, whatever Lean says.
	Lean bool

	// FlatPostings makes a new archive keep its table, band and content
	// postings in flat buckets of 2^BucketBits, as archives created
	// before 2026-11-27 do, rather than in levels (keys.go, Posting
	// levels): fewer reads a query and 0.58 times the shared ingest's
	// CPU at 10^6 documents, for more memory (1,175 bytes a lean
	// document at 10^6 against 899, 2,049 against 928 at 10^5, with
	// bucket bits 16). Recorded like BucketBits; an archive opened later
	// keeps what it was created with.
	FlatPostings bool
}

// Store is an index.Store in a Redis Cluster.
type Store struct {
	c          *redis.ClusterClient
	url        string // redacted
	prefix     string // NAME ":"
	bucketBits int
	lean       bool         // the archive keeps lean records (Options.Lean)
	levels     bool         // passage postings by level (keys.go, Passage levels)
	postLevels bool         // table, band and content postings by level (keys.go, Posting levels)
	hashedKeys bool         // record keys hold a hash of the ID (keys.go, recordKey)
	top        atomic.Int64 // the highest passage level known to hold postings
	epoch      string
	markers    []string // the marker key of every slot
	opts       Options

	life   sync.RWMutex
	closed bool

	rmu      sync.Mutex
	ranges   []slotRange
	rangesAt time.Time
}

// slotRange is a range of slots and the master serving it.
type slotRange struct {
	start, end int
	addr       string
}

// OpenIndex opens the archive at url (see Open) and the index in it
// (see index.New).
func OpenIndex(ctx context.Context, url string, opts *Options, iopts *index.Options) (*index.Index, error) {
	s, err := Open(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	return index.New(ctx, s, iopts)
}

// Open connects to the cluster of url and opens the archive NAME in it,
// creating it when there is none (unless opts.ReadOnly). It checks that
// the cluster is reachable and ok, that its masters run Redis 7.0 or
// later, and that every slot still holds the archive's marker. nil opts
// means the URL's parameters and the defaults.
func Open(ctx context.Context, url string, opts *Options) (*Store, error) {
	name, copts, o, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if opts != nil {
		if opts.BucketBits != 0 {
			o.BucketBits = opts.BucketBits
		}
		if opts.WaitReplicas != 0 {
			o.WaitReplicas = opts.WaitReplicas
		}
		if opts.WaitTimeout != 0 {
			o.WaitTimeout = opts.WaitTimeout
		}
		if opts.RetryWindow != 0 {
			o.RetryWindow = opts.RetryWindow
		}
		o.ReadOnly, o.Cluster, o.Lean = opts.ReadOnly, opts.Cluster, opts.Lean
		o.FlatPostings = o.FlatPostings || opts.FlatPostings
	}
	s := &Store{url: Redact(url), prefix: name + ":", opts: o}
	if o.BucketBits != 0 && (o.BucketBits < MinBucketBits || o.BucketBits > MaxBucketBits) {
		return nil, fmt.Errorf("redisstore: %s: bucket bits %d: want %d to %d", s.url, o.BucketBits, MinBucketBits, MaxBucketBits)
	}
	if o.WaitReplicas < 0 || o.WaitTimeout < 0 {
		return nil, fmt.Errorf("redisstore: %s: negative WaitReplicas or WaitTimeout", s.url)
	}
	if s.opts.WaitTimeout == 0 {
		s.opts.WaitTimeout = DefaultWaitTimeout
	}
	if s.opts.RetryWindow == 0 {
		s.opts.RetryWindow = DefaultRetryWindow
	}
	if o.Cluster != nil {
		o.Cluster(copts)
	}
	s.c = redis.NewClusterClient(copts)
	if err := s.open(ctx); err != nil {
		s.c.Close()
		return nil, err
	}
	return s, nil
}

// String returns the URL, without its password, which names the store
// in error messages.
func (s *Store) String() string { return s.url }

// Client returns the go-redis client the store uses.
func (s *Store) Client() *redis.ClusterClient { return s.c }

// BucketBits returns the archive's bucket bits.
func (s *Store) BucketBits() int { return s.bucketBits }

func (s *Store) errorf(format string, args ...any) error {
	return fmt.Errorf("redisstore: %s: "+format, append([]any{s.url}, args...)...)
}

func (s *Store) open(ctx context.Context) error {
	info, err := s.c.ClusterInfo(ctx).Result()
	if err != nil {
		return s.errorf("cluster unreachable: %w", err)
	}
	if !strings.Contains(info, "cluster_state:ok") {
		state := "unknown"
		for _, l := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "cluster_state:"); ok {
				state = v
			}
		}
		return s.errorf("cluster state is %s, not ok", state)
	}
	var vmu sync.Mutex
	var old []string
	err = s.c.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		v, err := c.Info(ctx, "server").Result()
		if err != nil {
			return err
		}
		ver := infoField(v, "redis_version")
		maj, _, _ := strings.Cut(ver, ".")
		if n, err := strconv.Atoi(maj); err != nil || n < 7 {
			vmu.Lock()
			old = append(old, c.Options().Addr+" runs "+ver)
			vmu.Unlock()
		}
		return nil
	})
	if err != nil {
		return s.errorf("cluster unreachable: %w", err)
	}
	if len(old) > 0 {
		return s.errorf("Redis 7.0 or later needed: %s", strings.Join(old, ", "))
	}
	if err := s.refreshRanges(ctx); err != nil {
		return err
	}
	s.markers = markerKeys(s.prefix)
	if !s.opts.ReadOnly {
		if err := s.loadLibrary(ctx); err != nil {
			return err
		}
	}
	creating, err := s.openEpoch(ctx)
	if err != nil {
		return err
	}
	if err := s.openRecords(ctx, creating); err != nil {
		return err
	}
	return s.openBucketBits(ctx)
}

// openRecords reads, or records when the archive is being created,
// whether it keeps lean records (Options.Lean): 'M' "records" is "lean"
// or "whole"; an archive without it (created before it existed) keeps
// whole records.
func (s *Store) openRecords(ctx context.Context, creating bool) error {
	key := s.storeKey("records")
	var v string
	var err error
	if creating && !s.opts.ReadOnly {
		want := "whole"
		if s.opts.Lean {
			want = "lean"
		}
		v, err = s.c.SetArgs(ctx, key, want, redis.SetArgs{Mode: "NX", Get: true}).Result()
		if err == redis.Nil {
			v, err = want, nil
		}
	} else {
		v, err = s.c.Get(ctx, key).Result()
		if err == redis.Nil {
			v, err = "whole", nil
		}
	}
	if err != nil {
		return s.errorf("records setting: %w", err)
	}
	switch v {
	case "lean":
		s.lean = true
	case "whole":
		s.lean = false
	default:
		return s.errorf("%w: records setting %q: want lean or whole", index.ErrCorrupt, v)
	}
	return nil
}

// openPassages reads, or records when the archive is being created,
// how it files passage postings: 'M' "passages" is "levels" (see
// keys.go, Passage levels); an archive without it, created before
// 2026-11-27, keeps them in its 2^B flat buckets, and is read and
// written so (a reuse Find then reads buckets that grow with the
// archive: build it again, under a new name, to have levels).
func (s *Store) openPassages(ctx context.Context, creating bool) error {
	key := s.storeKey("passages")
	var v string
	var err error
	if creating && !s.opts.ReadOnly {
		v, err = s.c.SetArgs(ctx, key, "levels", redis.SetArgs{Mode: "NX", Get: true}).Result()
		if err == redis.Nil {
			v, err = "levels", nil
		}
	} else {
		v, err = s.c.Get(ctx, key).Result()
		if err == redis.Nil {
			v, err = "flat", nil
		}
	}
	if err != nil {
		return s.errorf("passages setting: %w", err)
	}
	switch v {
	case "levels":
		s.levels = true
	case "flat":
		s.levels = false
	default:
		return s.errorf("%w: passages setting %q: want levels or flat", index.ErrCorrupt, v)
	}
	s.top.Store(-1)
	return nil
}

// openRecordKeys reads, or records when the archive is being created,
// how it names records: 'M' "recordkeys" is "hashed" (see recordKey);
// an archive without it, created before, names them by their IDs.
func (s *Store) openRecordKeys(ctx context.Context, creating bool) error {
	key := s.storeKey("recordkeys")
	var v string
	var err error
	if creating && !s.opts.ReadOnly {
		v, err = s.c.SetArgs(ctx, key, "hashed", redis.SetArgs{Mode: "NX", Get: true}).Result()
		if err == redis.Nil {
			v, err = "hashed", nil
		}
	} else {
		v, err = s.c.Get(ctx, key).Result()
		if err == redis.Nil {
			v, err = "ids", nil
		}
	}
	if err != nil {
		return s.errorf("record keys setting: %w", err)
	}
	switch v {
	case "hashed":
		s.hashedKeys = true
	case "ids":
		s.hashedKeys = false
	default:
		return s.errorf("%w: record keys setting %q: want hashed or ids", index.ErrCorrupt, v)
	}
	return nil
}

// appendRecord appends to dst the record rec of document id as the
// archive keeps it: a batch record (index.BatchRecord: lean, and band
// digests in place of the 64 sketch values of a record with a
// confirmation sketch) in a lean archive. The digests name no band
// keys, so removing such a document (replaced or deleted) leaves its
// band postings; they resolve to nothing, because a written record
// always gets a new number and the old one is unlinked first (see
// "Writes, atomicity and durability").
func (s *Store) appendRecord(dst, rec []byte, id string) ([]byte, error) {
	if !s.lean {
		return append(dst, rec...), nil
	}
	return index.BatchRecord(dst, rec, id)
}

// infoField returns the value of field in the text of INFO.
func infoField(info, field string) string {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok {
			return v
		}
	}
	return ""
}

// loadLibrary loads the function library on every master that lacks it.
func (s *Store) loadLibrary(ctx context.Context) error {
	err := s.c.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		for _, lib := range []string{library, ingestLibrary} {
			err := c.FunctionLoad(ctx, lib).Err()
			if err != nil && !strings.Contains(err.Error(), "already exists") {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.errorf("loading functions: %w", err)
	}
	return nil
}

// refreshRanges reads which master serves which slots.
func (s *Store) refreshRanges(ctx context.Context) error {
	slots, err := s.c.ClusterSlots(ctx).Result()
	if err != nil {
		return s.errorf("cluster slots: %w", err)
	}
	var rs []slotRange
	covered := 0
	for _, sl := range slots {
		r := slotRange{start: sl.Start, end: sl.End}
		if len(sl.Nodes) > 0 {
			r.addr = sl.Nodes[0].Addr
		}
		covered += sl.End - sl.Start + 1
		rs = append(rs, r)
	}
	if covered != numSlots {
		return s.errorf("the cluster serves %d of the %d slots", covered, numSlots)
	}
	s.rmu.Lock()
	s.ranges, s.rangesAt = rs, time.Now()
	s.rmu.Unlock()
	return nil
}

// epoch values: "c:" while the archive's markers are being written,
// "r:" once they all are, followed by 16 hex digits.
const (
	epochCreating = "c:"
	epochReady    = "r:"
)

// openEpoch finds the archive's epoch, creating the archive if there is
// none (findEpoch), and checks every slot's marker. While the epoch
// says the archive is being created, it writes the markers first
// (HSETNX, safe to repeat, so it completes a creation another process
// left half way) and marks the epoch ready once every marker is there.
func (s *Store) openEpoch(ctx context.Context) (creating bool, err error) {
	key := s.storeKey("epoch")
	ev, err := s.findEpoch(ctx, key)
	if err != nil {
		return false, err
	}
	state, e := ev[:min(2, len(ev))], ev[min(2, len(ev)):]
	if len(e) != 16 || (state != epochCreating && state != epochReady) {
		return false, s.errorf("%w: epoch %q", index.ErrCorrupt, ev)
	}
	s.epoch = e
	if state == epochCreating {
		if s.opts.ReadOnly {
			return false, s.errorf("%w: the archive is being created", index.ErrNotFound)
		}
		// Creating, by this process or one that stopped half way:
		// marking is idempotent.
		cmds := make([]redis.Cmder, numSlots)
		for i, m := range s.markers {
			cmds[i] = redis.NewBoolCmd(ctx, "hsetnx", m, "e", s.epoch)
		}
		if err := s.exec(ctx, cmds, true); err != nil {
			return false, s.errorf("writing the slot markers: %w", err)
		}
	}
	bad, err := s.checkAllMarkers(ctx)
	if err != nil {
		return false, err
	}
	if len(bad) > 0 {
		return false, s.errorf("%w: %d of the %d slots lost the archive's marker: %s restarted empty?",
			index.ErrCorrupt, len(bad), numSlots, s.describeSlots(bad))
	}
	// The passage layout is recorded before the archive is ready, so
	// that no writer opening it later takes it for an older one.
	if err := s.openPassages(ctx, state == epochCreating); err != nil {
		return false, err
	}
	if err := s.openRecordKeys(ctx, state == epochCreating); err != nil {
		return false, err
	}
	if state == epochCreating {
		if err := s.c.Set(ctx, key, epochReady+s.epoch, 0).Err(); err != nil {
			return false, s.errorf("%w", err)
		}
	}
	return state == epochCreating, nil
}

// findEpoch returns the value of the epoch key. When there is none, it
// tells an archive that lost its epoch key (markers in some slots:
// index.ErrCorrupt) from one that does not exist, which it creates
// (unless read-only) by setting a random epoch marked creating with
// SET NX GET: of writers racing to create it, all take the first one's
// epoch.
func (s *Store) findEpoch(ctx context.Context, key string) (string, error) {
	ev, err := s.c.Get(ctx, key).Result()
	if err != nil && err != redis.Nil {
		return "", s.errorf("%w", err)
	}
	if err != redis.Nil {
		return ev, nil
	}
	present, err := s.markerSlots(ctx)
	if err != nil {
		return "", err
	}
	if len(present) > 0 {
		// Another writer may have created the archive since.
		if ev, err = s.c.Get(ctx, key).Result(); err == redis.Nil {
			return "", s.errorf("%w: the archive's epoch key is gone but %d of the %d slots hold its markers: %s restarted empty?",
				index.ErrCorrupt, len(present), numSlots, s.describeSlots(missing(present)))
		} else if err != nil {
			return "", s.errorf("%w", err)
		}
		return ev, nil
	}
	if s.opts.ReadOnly {
		return "", s.errorf("%w: no archive of that name", index.ErrNotFound)
	}
	var b [8]byte
	rand.Read(b[:])
	mine := epochCreating + hex.EncodeToString(b[:])
	old, err := s.c.SetArgs(ctx, key, mine, redis.SetArgs{Mode: "NX", Get: true}).Result()
	switch {
	case err == redis.Nil:
		return mine, nil
	case err != nil:
		return "", s.errorf("%w", err)
	default:
		return old, nil
	}
}

// markerSlots returns the slots whose marker exists.
func (s *Store) markerSlots(ctx context.Context) ([]int, error) {
	cmds := make([]redis.Cmder, numSlots)
	for i, m := range s.markers {
		cmds[i] = redis.NewIntCmd(ctx, "exists", m)
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("reading the slot markers: %w", err)
	}
	var out []int
	for i, c := range cmds {
		if c.(*redis.IntCmd).Val() > 0 {
			out = append(out, i)
		}
	}
	return out, nil
}

// checkAllMarkers returns the slots whose marker does not hold s.epoch.
func (s *Store) checkAllMarkers(ctx context.Context) ([]int, error) {
	cmds := make([]redis.Cmder, numSlots)
	for i, m := range s.markers {
		cmds[i] = redis.NewStringCmd(ctx, "hget", m, "e")
	}
	if err := s.exec(ctx, cmds, false); err != nil {
		return nil, s.errorf("reading the slot markers: %w", err)
	}
	var bad []int
	for i, c := range cmds {
		if c.(*redis.StringCmd).Val() != s.epoch {
			bad = append(bad, i)
		}
	}
	return bad, nil
}

// missing returns the slots not in present (sorted).
func missing(present []int) []int {
	var out []int
	j := 0
	for i := 0; i < numSlots; i++ {
		if j < len(present) && present[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

// describeSlots names sorted slots as ranges with their masters:
// "slots 0-5460 (127.0.0.1:7000)".
func (s *Store) describeSlots(slots []int) string {
	s.rmu.Lock()
	rs := s.ranges
	s.rmu.Unlock()
	node := func(sl int) string {
		for _, r := range rs {
			if r.start <= sl && sl <= r.end {
				return r.addr
			}
		}
		return "?"
	}
	var parts []string
	for i := 0; i < len(slots); {
		j := i
		for j+1 < len(slots) && slots[j+1] == slots[j]+1 && node(slots[j+1]) == node(slots[i]) {
			j++
		}
		if len(parts) == 8 {
			parts = append(parts, "…")
			break
		}
		if i == j {
			parts = append(parts, fmt.Sprintf("slot %d (%s)", slots[i], node(slots[i])))
		} else {
			parts = append(parts, fmt.Sprintf("slots %d-%d (%s)", slots[i], slots[j], node(slots[i])))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// openBucketBits reads or records the archive's bucket bits.
func (s *Store) openBucketBits(ctx context.Context) error {
	key := s.storeKey("bucketbits")
	want := s.opts.BucketBits
	if want == 0 {
		want = DefaultBucketBits
	}
	var v string
	var err error
	if s.opts.ReadOnly {
		v, err = s.c.Get(ctx, key).Result()
	} else {
		// A new archive files its postings by level unless asked
		// not to; its setting, "B levels", is one that binaries of
		// before refuse.
		create := strconv.Itoa(want) + " levels"
		if s.opts.FlatPostings {
			create = strconv.Itoa(want)
		}
		v, err = s.c.SetArgs(ctx, key, create, redis.SetArgs{Mode: "NX", Get: true}).Result()
		if err == redis.Nil {
			v, err = create, nil
		}
	}
	if err != nil {
		return s.errorf("bucket bits: %w", err)
	}
	bits, lv := strings.CutSuffix(v, " levels")
	n, err := strconv.Atoi(bits)
	if err != nil || n < MinBucketBits || n > MaxBucketBits {
		return s.errorf("%w: bucket bits %q", index.ErrCorrupt, v)
	}
	s.postLevels = lv
	if s.opts.BucketBits != 0 && s.opts.BucketBits != n {
		return s.errorf("%w: the archive has bucket bits %d; the options ask for %d", index.ErrMismatch, n, s.opts.BucketBits)
	}
	s.bucketBits = n
	return nil
}

// use takes the shared lifetime lock, failing if s is closed. The caller
// must call s.life.RUnlock when use returns nil.
func (s *Store) use() error {
	s.life.RLock()
	if s.closed {
		s.life.RUnlock()
		return s.errorf("%w", index.ErrClosed)
	}
	return nil
}

// Close closes the connections. Later calls fail.
func (s *Store) Close() error {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.c.Close()
}

// checkCmds returns commands that read the marker of the first slot of
// every range of slots (one per master, unless slots were moved), to add
// to a pipeline; verify checks their results.
func (s *Store) checkCmds(ctx context.Context) []redis.Cmder {
	s.rmu.Lock()
	stale := time.Since(s.rangesAt) > rangesMaxAge
	rs := s.ranges
	s.rmu.Unlock()
	if stale {
		if s.refreshRanges(ctx) == nil {
			s.rmu.Lock()
			rs = s.ranges
			s.rmu.Unlock()
		}
	}
	cmds := make([]redis.Cmder, len(rs))
	for i, r := range rs {
		cmds[i] = redis.NewStringCmd(ctx, "hget", s.markers[r.start], "e")
	}
	return cmds
}

// verify reports an error if a marker read by checkCmds is not s.epoch.
func (s *Store) verify(cmds []redis.Cmder) error {
	var bad []int
	for _, c := range cmds {
		sc := c.(*redis.StringCmd)
		if sc.Err() != nil && sc.Err() != redis.Nil {
			return s.errorf("%w", sc.Err())
		}
		if sc.Val() != s.epoch {
			bad = append(bad, slot(sc.Args()[1].(string)))
		}
	}
	if len(bad) > 0 {
		return s.lostError(bad)
	}
	return nil
}

func (s *Store) lostError(slots []int) error {
	return s.errorf("%w: the archive's marker is gone from %s: the node restarted empty? (the archive has lost data)",
		index.ErrCorrupt, s.describeSlots(slots))
}

// exec runs cmds in one pipeline (go-redis sends each node its share at
// once) and returns the first error that is not redis.Nil. A write with
// Options.WaitReplicas goes through execWait instead. Function calls
// that fail because a master lacks the library (a master added since
// Open) are retried once after loading it; commands that fail with a
// transient error, within Options.RetryWindow (see retry.go).
func (s *Store) exec(ctx context.Context, cmds []redis.Cmder, write bool) error {
	if len(cmds) == 0 {
		return nil
	}
	run := func(cmds []redis.Cmder) {
		if write && s.opts.WaitReplicas > 0 {
			s.execWait(ctx, cmds)
			return
		}
		s.pipeline(ctx, cmds)
	}
	run(cmds)
	var redo, orig []redis.Cmder
	for _, c := range cmds {
		if fc, ok := c.(*redis.Cmd); ok && fc.Err() != nil && strings.Contains(fc.Err().Error(), "Function not found") {
			redo = append(redo, redis.NewCmd(ctx, fc.Args()...))
			orig = append(orig, c)
		}
	}
	if len(redo) > 0 && s.loadLibrary(ctx) == nil {
		run(redo)
		for i, c := range redo {
			o := orig[i].(*redis.Cmd)
			o.SetVal(c.(*redis.Cmd).Val())
			o.SetErr(c.Err())
		}
	}
	s.retry(ctx, cmds, run, write && s.opts.WaitReplicas > 0)
	if err := firstErr(cmds); err != nil {
		// go-redis reloads its view of the cluster every minute, or on
		// MOVED; a pipeline that met a dead node (a failover under way)
		// makes it reload now, so that the next call reaches the
		// promoted replica.
		var re redis.Error
		if !errors.As(err, &re) || strings.HasPrefix(err.Error(), "CLUSTERDOWN") || strings.HasPrefix(err.Error(), "TRYAGAIN") {
			s.c.ReloadState(ctx)
		}
	}
	return firstErr(cmds)
}

// pipeline runs cmds in one pipeline of the cluster client, APPENDs with
// go-redis's retries off (see retry.go).
func (s *Store) pipeline(ctx context.Context, cmds []redis.Cmder) {
	pipe := s.c.Pipeline()
	for _, c := range cmds {
		pipe.Process(ctx, sendable(c))
	}
	pipe.Exec(ctx)
}

// cmdKey returns the first key of one of the store's commands.
func cmdKey(c redis.Cmder) string {
	a := c.Args()
	if strings.EqualFold(fmt.Sprint(a[0]), "fcall") {
		return a[3].(string)
	}
	return a[1].(string)
}

// execWait runs cmds in one pipeline per master, each followed by WAIT
// on the same connection, so that the writes of that connection are
// waited for. A master that does not get Options.WaitReplicas
// acknowledgements within Options.WaitTimeout fails its commands.
func (s *Store) execWait(ctx context.Context, cmds []redis.Cmder) {
	groups := map[*redis.Client][]redis.Cmder{}
	for _, c := range cmds {
		n, err := s.c.MasterForKey(ctx, cmdKey(c))
		if err != nil {
			c.SetErr(err)
			continue
		}
		groups[n] = append(groups[n], c)
	}
	var wg sync.WaitGroup
	for n, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pipe := n.Pipeline()
			for _, c := range g {
				pipe.Process(ctx, sendable(c))
			}
			wait := redis.NewIntCmd(ctx, "wait", s.opts.WaitReplicas, s.opts.WaitTimeout.Milliseconds())
			pipe.Process(ctx, wait)
			pipe.Exec(ctx)
			var err error
			switch {
			case wait.Err() != nil:
				err = wait.Err()
			case wait.Val() < int64(s.opts.WaitReplicas):
				err = fmt.Errorf("%s: %d of %d replicas acknowledged the writes within %v", n.Options().Addr, wait.Val(), s.opts.WaitReplicas, s.opts.WaitTimeout)
			}
			if err != nil {
				for _, c := range g {
					if c.Err() == nil || c.Err() == redis.Nil {
						c.SetErr(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := firstErr(cmds); err != nil && (strings.HasPrefix(err.Error(), "MOVED") || strings.HasPrefix(err.Error(), "ASK")) {
		s.c.ReloadState(ctx)
	}
}

func firstErr(cmds []redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil && err != redis.Nil {
			return err
		}
	}
	return nil
}
