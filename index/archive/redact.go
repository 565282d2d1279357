package archive

import "github.com/neardup/neardup/index/redisstore"

// Redact returns the archive name (an --index) as it may be shown: a
// Redis URL's password replaced by "xxxxx" (redisstore.Redact), anything
// else as it is. Print it wherever an archive is named: summaries,
// reports, --json, a server's start and stop lines, errors.
func Redact(name string) string {
	if !redisstore.IsURL(name) {
		return name
	}
	return redisstore.Redact(name)
}
