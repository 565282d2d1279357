package dedup

import (
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// DocOf returns the archive document of the article id, titled title,
// that an is the analysis of: its fingerprint, content hash and sketch,
// and its first keywords (none when keywords is 0, all when it is
// negative), which the archive keeps to explain later matches. It is
// where an analysis meets the archive, so that the analysis does not
// depend on the archive's types.
func DocOf(an *neardup.Analysis, id, title string, keywords int) index.Doc {
	kw := an.Keywords
	if keywords >= 0 {
		kw = kw[:min(len(kw), keywords)]
	}
	if len(kw) == 0 {
		kw = nil
	}
	return index.Doc{ID: id, Title: title, Fingerprint: an.Fingerprint, ContentHash: an.ContentHash, Keywords: kw, Sketch: an.Sketch, Shingles: an.Shingles, Long: an.Long}
}
