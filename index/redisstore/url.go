package redisstore

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// IsURL reports whether s names a Redis archive (redis:// or rediss://)
// rather than a directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://")
}

// nameRE is what an archive name may be: it prefixes every key, so it
// has no braces (a hash tag would put the whole archive in one slot) and
// no separator of its own.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Store options that the URL's query may set; the other parameters are
// go-redis's (see redis.ParseClusterURL: dial_timeout, read_timeout,
// pool_size, ...).
const (
	paramBucketBits   = "bucket_bits"
	paramWaitReplicas = "wait_replicas"
	paramWaitTimeout  = "wait_timeout"
	paramRetryWindow  = "retry_window"
	paramPostings     = "postings"
)

// ParseURL parses an archive URL,
//
//	redis://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]/NAME[?PARAMS]
//	rediss://...   (TLS, verified against the first host's name)
//
// into the archive name, go-redis's cluster options and the store
// options the query sets (bucket_bits, wait_replicas, wait_timeout,
// retry_window: Options.BucketBits and so on; retry_window=0 turns the
// store's retries off; postings=flat is Options.FlatPostings, postings=levels
// the default). The hosts are seed nodes of the cluster; NAME (1 to 64 of A-Z a-z 0-9 _ .
// -) namespaces every key, so that several archives share one cluster.
// Further seeds may also be given as addr=HOST:PORT parameters, and
// go-redis's own parameters (dial_timeout=3s, pool_size=20, ...) pass
// through to it.
func ParseURL(raw string) (name string, copts *redis.ClusterOptions, opts Options, err error) {
	fail := func(format string, args ...any) (string, *redis.ClusterOptions, Options, error) {
		return "", nil, Options{}, fmt.Errorf("redisstore: %s: %s", Redact(raw), fmt.Sprintf(format, args...))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || (scheme != "redis" && scheme != "rediss") {
		return fail("want redis://HOST:PORT[,HOST:PORT...]/NAME or rediss://...")
	}
	rest, query, _ := strings.Cut(rest, "?")
	auth, rest, hasAuth := strings.Cut(rest, "@")
	if !hasAuth {
		auth, rest = "", auth
	} else if strings.Contains(rest, "@") {
		return fail("more than one @")
	}
	hosts, name, _ := strings.Cut(rest, "/")
	if !nameRE.MatchString(name) {
		return fail("archive name %q: want 1 to 64 of A-Z a-z 0-9 _ . - after the hosts", name)
	}
	seeds := strings.Split(hosts, ",")
	for _, h := range seeds {
		if h == "" || !strings.Contains(h, ":") {
			return fail("seed %q: want HOST:PORT", h)
		}
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return fail("query: %v", err)
	}
	if v := q.Get(paramBucketBits); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fail("%s=%q: %v", paramBucketBits, v, err)
		}
		opts.BucketBits = n
	}
	if v := q.Get(paramWaitReplicas); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fail("%s=%q: want a count", paramWaitReplicas, v)
		}
		opts.WaitReplicas = n
	}
	if v := q.Get(paramWaitTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fail("%s=%q: %v", paramWaitTimeout, v, err)
		}
		opts.WaitTimeout = d
	}
	if v := q.Get(paramRetryWindow); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fail("%s=%q: want a duration (30s; 0 for no retries)", paramRetryWindow, v)
		}
		opts.RetryWindow = d
		if d == 0 {
			opts.RetryWindow = -1 // none
		}
	}
	switch v := q.Get(paramPostings); v {
	case "flat":
		opts.FlatPostings = true
	case "", "levels":
	default:
		return fail("%s=%q: want flat or levels", paramPostings, v)
	}
	q.Del(paramPostings)
	q.Del(paramRetryWindow)
	q.Del(paramBucketBits)
	q.Del(paramWaitReplicas)
	q.Del(paramWaitTimeout)
	for _, h := range seeds[1:] {
		q.Add("addr", h)
	}
	// go-redis parses the rest: user and password, TLS for rediss, the
	// client's own parameters.
	u := scheme + "://"
	if hasAuth {
		u += auth + "@"
	}
	u += seeds[0]
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	copts, err = redis.ParseClusterURL(u)
	if err != nil {
		return fail("%v", strings.ReplaceAll(err.Error(), u, Redact(u)))
	}
	return name, copts, opts, nil
}

// Redact returns raw with the password of its user information, if any,
// replaced by "xxxxx", for messages. The user information ends at the
// last "@" before the query, as ParseURL reads it, so a password holding
// "/" is hidden too.
func Redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	hostEnd := strings.IndexByte(rest, '?')
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	at := strings.LastIndex(rest[:hostEnd], "@")
	if at < 0 {
		return raw
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return raw
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}
