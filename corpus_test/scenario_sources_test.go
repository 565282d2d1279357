package corpus_test

import (
	"regexp"
	"strings"
)

// scnScenario is one end-to-end scenario: which articles of the clean
// corpora it is made of, and how many edited copies the generator makes.
type scnScenario struct {
	name string
	// articles are the originals; negatives are other articles that must
	// match none of them (each is labelled a negative of its against).
	articles, negatives []scnSource
	// copies is how many edited copies to make: copy j is of article
	// j mod len(articles), with edit kind j mod 7.
	copies int
	// group, when not nil, names an article's group: two originals of the
	// same group are labelled negatives (same genre, same era, the two
	// language versions of one help page).
	group func(id, title string) string
	// convert, when not empty, replaces the edited copies: each article
	// gets one copy per OpenCC configuration (s2t, s2tw, …), made by the
	// Debian opencc command (scnOpenCC), whose kind is the configuration;
	// and the negatives are converted with negConvert.
	convert    []string
	negConvert string
}

// scnSource is a text taken from a corpus in /work/shared/corpora.
type scnSource struct {
	corpus  string // en_docs, zh_docs, en_brown or en_speeches
	id      string
	cut     scnCut // zero: the whole text
	against string // negatives: the original it is a negative of
}

// scnCut takes part of a long text: the sentences (see scnPieces) from
// the first one that starts at or after byte From, until at least Size
// bytes are taken; white space at the end is dropped.
type scnCut struct {
	From, Size int
	Suffix     string // added to the ID (after ":") and title of a part that is not the beginning
}

var (
	scnExcerpt      = scnCut{Size: 2800}
	scnLaterExcerpt = scnCut{From: 6000, Size: 2800, Suffix: "later"}
	scnLong         = scnCut{Size: 18000}
	scnLongLater    = scnCut{From: 18000, Size: 18000, Suffix: "later"}
)

// scnBrownGenre is a Brown sample's genre, from its title.
var scnBrownGenre = regexp.MustCompile(`\(([^)]*)\)$`)

// scnScenarios lists the scenarios. The docs were chosen by these rules
// (see testdata/README.md): no document that the corpus's reference pair
// list (NAME.pairs.jsonl.gz) pairs with another at character 5-gram
// Jaccard >= 0.5; 1,200 to 3,400 bytes (zh: 3,600) with at least 4 lines
// and 6 sentences; Chinese LibreOffice pages with at least 90% of their
// lines translated; then in the order of the SHA-1 of their IDs. Each
// docs negative is the page of the same collection with the highest
// Jaccard similarity to its original below 0.4 (noted in the comments).
var scnScenarios = []scnScenario{
	{
		// Traditional reprints: 9 LibreOffice help pages and 9 Debian
		// Reference sections of zh_docs_reprints, each converted by
		// Debian's opencc with s2t, s2tw, s2hk and s2twp (Taiwan
		// phrasing); the negatives are the zh_docs_reprints negatives of
		// these articles converted with s2twp: traditional text that is
		// not a reprint must not match.
		name:       "zh_docs_traditional",
		convert:    []string{"s2t", "s2tw", "s2hk", "s2twp"},
		negConvert: "s2twp",
		articles: []scnSource{
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/word_completion_adjust"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/autopi/01100000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/06090000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/04030000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/01/wiz_data_range"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/guide/main"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/guide/table_insert"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/sbasic/shared/01170103"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/xforms"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/057"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch08/009"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/061"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/006"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch10/008"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/046"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/034"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch05/010"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/055"},
		},
		negatives: []scnSource{
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/06040600", against: "lo-help-zh-CN/text/swriter/guide/word_completion_adjust"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/autopi/01090000", against: "lo-help-zh-CN/text/shared/autopi/01100000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/06100000", against: "lo-help-zh-CN/text/swriter/01/06090000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/02150000", against: "lo-help-zh-CN/text/swriter/01/04030000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/01/wiz_data_series", against: "lo-help-zh-CN/text/schart/01/wiz_data_range"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/guide/html_doc", against: "lo-help-zh-CN/text/scalc/guide/main"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/053", against: "debian-reference-zh-cn/ch02/057"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch08/010", against: "debian-reference-zh-cn/ch08/009"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/024", against: "debian-reference-zh-cn/ch02/061"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/016", against: "debian-reference-zh-cn/ch02/006"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/052", against: "debian-reference-zh-cn/ch10/008"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/039", against: "debian-reference-zh-cn/ch09/046"},
		},
	},
	{
		name:   "en_docs_reprints",
		copies: 72,
		articles: []scnSource{
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/main0400"},
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/01/06030000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/guide/csv_formula"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sdraw/guide/draw_sector"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/04/01020000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/01/stat_data"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/01/05020400"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sbasic/shared/03100700"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sbasic/shared/03090202"},
			{corpus: "en_docs", id: "lo-help-en-US/text/simpress/guide/presenter_console"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/guide/textdoc_inframe"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sbasic/shared/02/20000000"},
			{corpus: "en_docs", id: "gnome-help-C/disk-repair"},
			{corpus: "en_docs", id: "gnome-help-C/net-findip"},
			{corpus: "en_docs", id: "gnome-help-C/files-sort"},
			{corpus: "en_docs", id: "gnome-help-C/touchscreen-gestures"},
			{corpus: "en_docs", id: "gnome-help-C/files-search"},
			{corpus: "en_docs", id: "gnome-help-C/disk-partitions"},
			{corpus: "en_docs", id: "gnome-help-C/gnome-classic"},
			{corpus: "en_docs", id: "gnome-help-C/bluetooth-problem-connecting"},
			{corpus: "en_docs", id: "gnome-help-C/files-rename"},
			{corpus: "en_docs", id: "gnome-help-C/accounts-which-application"},
			{corpus: "en_docs", id: "gnome-help-C/video-dvd"},
			{corpus: "en_docs", id: "gnome-help-C/mouse-problem-notmoving"},
			{corpus: "en_docs", id: "debian-reference-en/ch01/041"},
			{corpus: "en_docs", id: "debian-reference-en/ch06/008"},
			{corpus: "en_docs", id: "debian-reference-en/ch10/027"},
			{corpus: "en_docs", id: "debian-reference-en/ch07/003"},
			{corpus: "en_docs", id: "debian-reference-en/ch12/002"},
			{corpus: "en_docs", id: "debian-reference-en/ch09/030"},
			{corpus: "en_docs", id: "debian-reference-en/ch03/016"},
			{corpus: "en_docs", id: "debian-reference-en/ch02/014"},
			{corpus: "en_docs", id: "debian-reference-en/ch12/008"},
			{corpus: "en_docs", id: "debian-reference-en/ch09/002"},
			{corpus: "en_docs", id: "debian-reference-en/apa/001"},
			{corpus: "en_docs", id: "debian-reference-en/ch08/003"},
		},
		negatives: []scnSource{
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/guide/keyboard", against: "lo-help-en-US/text/shared/main0400"},             // J 0.23
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/guide/scenario", against: "lo-help-en-US/text/scalc/01/06030000"},           // J 0.15
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/guide/csv_files", against: "lo-help-en-US/text/scalc/guide/csv_formula"},    // J 0.27
			{corpus: "en_docs", id: "lo-help-en-US/text/simpress/guide/line_draw", against: "lo-help-en-US/text/sdraw/guide/draw_sector"}, // J 0.15
			{corpus: "en_docs", id: "gnome-help-C/disk-resize", against: "gnome-help-C/disk-repair"},                                      // J 0.26
			{corpus: "en_docs", id: "gnome-help-C/net-fixed-ip-address", against: "gnome-help-C/net-findip"},                              // J 0.18
			{corpus: "en_docs", id: "gnome-help-C/nautilus-display", against: "gnome-help-C/files-sort"},                                  // J 0.16
			{corpus: "en_docs", id: "gnome-help-C/mouse-middleclick", against: "gnome-help-C/touchscreen-gestures"},                       // J 0.10
			{corpus: "en_docs", id: "debian-reference-en/ch04/006", against: "debian-reference-en/ch01/041"},                              // J 0.07
			{corpus: "en_docs", id: "debian-reference-en/ch10/002", against: "debian-reference-en/ch06/008"},                              // J 0.09
			{corpus: "en_docs", id: "debian-reference-en/ch10/028", against: "debian-reference-en/ch10/027"},                              // J 0.13
			{corpus: "en_docs", id: "debian-reference-en/ch06/004", against: "debian-reference-en/ch07/003"},                              // J 0.07
		},
	},
	{
		name:   "zh_docs_reprints",
		copies: 72,
		articles: []scnSource{
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/word_completion_adjust"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/autopi/01100000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/06090000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/04030000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/01/wiz_data_range"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/guide/main"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/guide/table_insert"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/sbasic/shared/01170103"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/xforms"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/xsltfilter"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/sdraw/guide/groups"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/01/01180001"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/02220000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/guide/webquery"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/smath/guide/keyboard"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/title_page"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/01/04020000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/00/00000004"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/057"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch08/009"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/061"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/006"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch10/008"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/046"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/034"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch05/010"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/055"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch01/026"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch04/004"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/059"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch10/030"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch12/013"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch01/045"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch04/017"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch01/010"},
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/013"},
		},
		negatives: []scnSource{
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/06040600", against: "lo-help-zh-CN/text/swriter/guide/word_completion_adjust"}, // J 0.05
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/autopi/01090000", against: "lo-help-zh-CN/text/shared/autopi/01100000"},           // J 0.20
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/06100000", against: "lo-help-zh-CN/text/swriter/01/06090000"},                 // J 0.03
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/02150000", against: "lo-help-zh-CN/text/swriter/01/04030000"},                 // J 0.25
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/schart/01/wiz_data_series", against: "lo-help-zh-CN/text/schart/01/wiz_data_range"},      // J 0.22
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/guide/html_doc", against: "lo-help-zh-CN/text/scalc/guide/main"},                   // J 0.03
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/053", against: "debian-reference-zh-cn/ch02/057"},                               // J 0.07
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch08/010", against: "debian-reference-zh-cn/ch08/009"},                               // J 0.03
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/024", against: "debian-reference-zh-cn/ch02/061"},                               // J 0.06
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch02/016", against: "debian-reference-zh-cn/ch02/006"},                               // J 0.01
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/052", against: "debian-reference-zh-cn/ch10/008"},                               // J 0.03
			{corpus: "zh_docs", id: "debian-reference-zh-cn/ch09/039", against: "debian-reference-zh-cn/ch09/046"},                               // J 0.04
		},
	},
	{
		// Six samples of each fiction genre, cut to their first 2,800
		// bytes; the negatives are later passages of the same stories
		// (same characters and style, different text), and samples of the
		// same genre are negatives of each other.
		name:   "brown_fiction",
		copies: 60,
		articles: []scnSource{
			{corpus: "en_brown", id: "brown/ck20", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/ck02", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/ck08", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/ck26", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/ck04", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/ck18", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl22", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl06", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl23", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl04", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl11", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cl14", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm01", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm02", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm06", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm04", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm03", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cm05", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn15", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn10", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn08", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn04", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn16", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cn03", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp11", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp18", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp16", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp10", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp09", cut: scnExcerpt},
			{corpus: "en_brown", id: "brown/cp26", cut: scnExcerpt},
		},
		negatives: []scnSource{
			{corpus: "en_brown", id: "brown/ck20", cut: scnLaterExcerpt, against: "brown/ck20"},
			{corpus: "en_brown", id: "brown/ck02", cut: scnLaterExcerpt, against: "brown/ck02"},
			{corpus: "en_brown", id: "brown/cl22", cut: scnLaterExcerpt, against: "brown/cl22"},
			{corpus: "en_brown", id: "brown/cl06", cut: scnLaterExcerpt, against: "brown/cl06"},
			{corpus: "en_brown", id: "brown/cm01", cut: scnLaterExcerpt, against: "brown/cm01"},
			{corpus: "en_brown", id: "brown/cm02", cut: scnLaterExcerpt, against: "brown/cm02"},
			{corpus: "en_brown", id: "brown/cn15", cut: scnLaterExcerpt, against: "brown/cn15"},
			{corpus: "en_brown", id: "brown/cn10", cut: scnLaterExcerpt, against: "brown/cn10"},
			{corpus: "en_brown", id: "brown/cp11", cut: scnLaterExcerpt, against: "brown/cp11"},
			{corpus: "en_brown", id: "brown/cp18", cut: scnLaterExcerpt, against: "brown/cp18"},
		},
		group: func(id, title string) string {
			if m := scnBrownGenre.FindStringSubmatch(title); m != nil {
				return m[1]
			}
			return ""
		},
	},
	{
		// Four presidents, two consecutive addresses each, cut to their
		// first 18,000 bytes: all are negatives of each other, and so is
		// the next 18,000 bytes of the 1904 address.
		name:   "speeches_long",
		copies: 10,
		articles: []scnSource{
			{corpus: "en_speeches", id: "sotu/1903_theodore_roosevelt_r", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1904_theodore_roosevelt_r", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1910_william_h_taft_r", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1911_william_h_taft_r", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1914_woodrow_wilson_d", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1915_woodrow_wilson_d", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1924_calvin_coolidge_r", cut: scnLong},
			{corpus: "en_speeches", id: "sotu/1925_calvin_coolidge_r", cut: scnLong},
		},
		negatives: []scnSource{
			{corpus: "en_speeches", id: "sotu/1904_theodore_roosevelt_r", cut: scnLongLater, against: "sotu/1904_theodore_roosevelt_r"},
		},
		group: func(id, title string) string { return "1903-1925" },
	},
	{
		// The English and Chinese versions of 25 LibreOffice help pages
		// (18 with at least 95% of the Chinese lines translated, 5 with
		// 80-95%, 2 with 50-80%; all with Jaccard < 0.4 between the two):
		// the two versions of a page are negatives, and nothing may match
		// across languages.
		name:   "libreoffice_twins",
		copies: 50,
		articles: []scnSource{
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/01/01070000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/01070000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/guide/table_insert"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/table_insert"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/01/01140000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/01140000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/optionen/01150300"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/optionen/01150300"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/01/05090100"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/05090100"},
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/01/xml_source"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/01/xml_source"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/guide/gallery_insert"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/gallery_insert"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/guide/chart_insert"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/chart_insert"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/guide/groups"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/groups"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/guide/redlining_enter"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/redlining_enter"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/main0650"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/main0650"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/02/05110000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/02/05110000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/01/02110000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/02110000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/01/mailmerge04"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/01/mailmerge04"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/guide/indices_form"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/indices_form"},
			{corpus: "en_docs", id: "lo-help-en-US/text/simpress/01/02120000"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/01/02120000"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/guide/conditional_text"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/conditional_text"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/guide/data_dbase2office"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/guide/data_dbase2office"},
			{corpus: "en_docs", id: "lo-help-en-US/text/swriter/guide/numbering_lines"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/swriter/guide/numbering_lines"},
			{corpus: "en_docs", id: "lo-help-en-US/text/shared/01/xformsdatatab"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/shared/01/xformsdatatab"},
			{corpus: "en_docs", id: "lo-help-en-US/text/simpress/guide/animated_slidechange"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/guide/animated_slidechange"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sbasic/shared/00000002"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/sbasic/shared/00000002"},
			{corpus: "en_docs", id: "lo-help-en-US/text/simpress/guide/line_arrow_styles"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/simpress/guide/line_arrow_styles"},
			{corpus: "en_docs", id: "lo-help-en-US/text/scalc/01/04070400"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/scalc/01/04070400"},
			{corpus: "en_docs", id: "lo-help-en-US/text/sbasic/shared/03030205"},
			{corpus: "zh_docs", id: "lo-help-zh-CN/text/sbasic/shared/03030205"},
		},
		group: func(id, title string) string {
			_, page, _ := strings.Cut(id, "/")
			return page
		},
	},
}
