package corpus_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The edit kinds of the generated copies, in the order copies cycle
// through them.
const (
	scnReprint        = "reprint"         // a new header and footer around the whole text
	scnDeleteSentence = "delete-sentence" // one sentence removed
	scnInsertSentence = "insert-sentence" // one sentence of another article inserted
	scnSwapParagraphs = "swap-paragraphs" // two paragraphs exchanged
	scnTruncate       = "truncate-85"     // the first 85% of the runes kept
	scnPunctWidth     = "punct-width"     // zh: full-width punctuation to ASCII; en: ASCII to full-width
	scnRewrite        = "rewrite-10"      // about a tenth of the sentences rewritten
)

var scnKinds = []string{scnReprint, scnDeleteSentence, scnInsertSentence, scnSwapParagraphs, scnTruncate, scnPunctWidth, scnRewrite}

// More edit kinds, made for the news corpora (news_edits_test.go): a
// deeper truncation, a header with a truncation, and copies made from
// other copies.
const (
	scnTruncateMore   = "truncate-70"     // the first 70% to 85% of the runes kept
	scnHeaderTruncate = "header-truncate" // a new header line, then the first 75% to 85% of the runes
	scnCopyOfCopy     = "copy-copy"       // an edit of another copy (see scnEditor.derived)
	scnChain1         = "chain-1"         // an edit of the original
	scnChain2         = "chain-2"         // an edit of chain-1
	scnChain3         = "chain-3"         // an edit of chain-2
)

// scnSeed seeds the generator: every scenario's PCG starts from it and
// the FNV-1a hash of the scenario's name.
const scnSeed = 0x6e65617264757073 // "neardups"

// scnRand returns the generator's random source for a scenario.
func scnRand(scenario string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(scenario))
	return rand.New(rand.NewPCG(scnSeed, h.Sum64()))
}

// scnLang is the language of an article: "zh" for the Chinese Debian
// documents (their IDs name zh-CN or zh-cn) and the Sina news of the
// shared corpora (IDs "sina…"), "en" otherwise.
func scnLang(id string) string {
	if strings.Contains(strings.ToLower(id), "zh-cn") || strings.HasPrefix(id, "sina") {
		return "zh"
	}
	return "en"
}

// scnMinRunes is how long a sentence or paragraph must be (in runes,
// without surrounding white space) to be deleted, moved, rewritten or
// given to another article: headings and one-word lines do not count.
func scnMinRunes(lang string) int {
	if lang == "zh" {
		return 12
	}
	return 30
}

// scnPieces splits text into sentences whose concatenation is text. A
// sentence ends after a newline; after a run of 。！？ (with any closing
// quotes and brackets after it); or after a run of . ! ? followed by
// closing quotes or brackets and then white space. The white space after
// a sentence belongs to it.
func scnPieces(text string) []string {
	var out []string
	start := 0
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			i += n
		case strings.ContainsRune("。！？", r):
			i += n
			i = scnSkip(text, i, scnIsTerminator)
			i = scnSkip(text, i, scnIsCloser)
		case r == '.' || r == '!' || r == '?':
			j := scnSkip(text, i+n, scnIsTerminator)
			j = scnSkip(text, j, scnIsCloser)
			if j < len(text) {
				if c, _ := utf8.DecodeRuneInString(text[j:]); !unicode.IsSpace(c) {
					i = j
					continue
				}
			}
			i = j
		default:
			i += n
			continue
		}
		i = scnSkip(text, i, unicode.IsSpace)
		out = append(out, text[start:i])
		start = i
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func scnIsTerminator(r rune) bool { return strings.ContainsRune(".!?。！？", r) }

func scnIsCloser(r rune) bool { return strings.ContainsRune(`"')]”’」』）`, r) }

// scnSkip returns the offset of the first rune at or after i that f
// rejects.
func scnSkip(s string, i int, f func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !f(r) {
			break
		}
		i += n
	}
	return i
}

// scnSplitSpace splits a piece into its text and the white space after it.
func scnSplitSpace(p string) (body, space string) {
	body = strings.TrimRightFunc(p, unicode.IsSpace)
	return body, p[len(body):]
}

// scnParagraphs splits text into paragraphs whose concatenation is text:
// its lines, or, for a text of fewer than 4 non-blank lines (the State of
// the Union addresses have none), runs of 5 sentences.
func scnParagraphs(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	nonBlank := 0
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			nonBlank++
		}
	}
	if nonBlank >= 4 {
		return lines
	}
	pieces := scnPieces(text)
	var out []string
	for i := 0; i < len(pieces); i += 5 {
		out = append(out, strings.Join(pieces[i:min(i+5, len(pieces))], ""))
	}
	return out
}

// scnEligible returns the indexes of the parts at least minRunes long.
func scnEligible(parts []string, minRunes int) []int {
	var out []int
	for i, p := range parts {
		if utf8.RuneCountInString(strings.TrimSpace(p)) >= minRunes {
			out = append(out, i)
		}
	}
	return out
}

// scnHeaders and scnFooters are what a reprint adds, per language.
var (
	scnHeaders = map[string][]string{
		"en": {
			"Reprinted from the Free Software Documentation Digest, issue %d. Republished with permission.",
			"This article first appeared in the Community Desktop Newsletter (no. %d) and is reproduced here unchanged.",
			"From our archive: tutorial number %d of the Open Office Tips series, republished for new readers.",
		},
		"zh": {
			"本文转载自《开源文档周刊》第%d期，经授权发布。",
			"来源：自由软件技术社区（第%d期精选），转载请注明出处。",
			"【编者按】本文选自办公软件使用技巧系列第%d篇，现重新刊发以飨读者。",
		},
	}
	scnFooters = map[string][]string{
		"en": {
			"Share this article with your colleagues. Comments and corrections are welcome on our mailing list.",
			"Copyright belongs to the original authors. Subscribe to the digest for weekly tips and tutorials.",
			"Did you find this useful? Read more guides in our archive and follow us for the next issue.",
		},
		"zh": {
			"（本文仅代表作者观点，版权归原作者所有。如有侵权，请联系删除。）",
			"更多精彩内容，欢迎关注我们的公众号，每周为您推送实用教程。",
			"责任编辑：王晓明　校对：李华。欢迎在评论区留言交流。",
		},
	}
)

// scnPunctToASCII and scnPunctToFull change punctuation width.
var (
	scnPunctToASCII = strings.NewReplacer("，", ",", "。", ".", "！", "!", "？", "?", "：", ":", "；", ";", "（", "(", "）", ")")
	scnPunctToFull  = strings.NewReplacer(",", "，", ".", "。", "!", "！", "?", "？", ":", "：", ";", "；", "(", "（", ")", "）")
)

// scnEditor makes the edited copies of one scenario's articles.
type scnEditor struct {
	r        *rand.Rand
	articles []scnDoc
}

// copies makes n copies: copy j is of article j mod len(articles), with
// edit kind j mod 7.
func (e *scnEditor) copies(n int) ([]scnDoc, error) {
	out := make([]scnDoc, 0, n)
	seen := make(map[string]bool, n)
	for j := range n {
		a := &e.articles[j%len(e.articles)]
		kind := scnKinds[j%len(scnKinds)]
		text, err := e.edit(a, kind)
		if err != nil {
			return nil, fmt.Errorf("copy %d (%s of %s): %w", j, kind, a.ID, err)
		}
		if text == a.Text {
			return nil, fmt.Errorf("copy %d (%s of %s): the edit changed nothing", j, kind, a.ID)
		}
		id := a.ID + "#" + kind
		if seen[id] {
			return nil, fmt.Errorf("copy %d: id %s made twice", j, id)
		}
		seen[id] = true
		out = append(out, scnDoc{ID: id, Title: a.Title, Text: text, Kind: kind, Original: a.ID})
	}
	return out, nil
}

// edit returns a's text changed by one edit of the given kind.
func (e *scnEditor) edit(a *scnDoc, kind string) (string, error) {
	lang := scnLang(a.ID)
	minRunes := scnMinRunes(lang)
	switch kind {
	case scnReprint:
		hs, fs := scnHeaders[lang], scnFooters[lang]
		h := fmt.Sprintf(hs[e.r.IntN(len(hs))], 10+e.r.IntN(190))
		f := fs[e.r.IntN(len(fs))]
		return h + "\n" + a.Text + "\n" + f, nil

	case scnDeleteSentence:
		ps := scnPieces(a.Text)
		el := scnEligible(ps, minRunes)
		if len(el) < 2 {
			return "", fmt.Errorf("%d sentences of %d runes or more, need 2", len(el), minRunes)
		}
		i := el[e.r.IntN(len(el))]
		return strings.Join(ps[:i], "") + strings.Join(ps[i+1:], ""), nil

	case scnInsertSentence:
		s, err := e.donorSentence(a, lang)
		if err != nil {
			return "", err
		}
		ps := scnPieces(a.Text)
		at := 1 + e.r.IntN(len(ps)) // after ps[at-1]
		_, space := scnSplitSpace(ps[at-1])
		switch {
		case strings.Contains(space, "\n"):
			s += "\n"
		case space == "" && at == len(ps):
			s = scnSep(lang) + s // the text ends without white space
		default:
			s += scnSep(lang)
		}
		return strings.Join(ps[:at], "") + s + strings.Join(ps[at:], ""), nil

	case scnSwapParagraphs:
		ps := scnParagraphs(a.Text)
		el := scnEligible(ps, minRunes)
		if len(el) < 2 {
			return "", fmt.Errorf("%d paragraphs of %d runes or more, need 2", len(el), minRunes)
		}
		x := e.r.IntN(len(el))
		y := e.r.IntN(len(el) - 1)
		if y >= x {
			y++
		}
		i, j := el[x], el[y]
		bi, si := scnSplitSpace(ps[i])
		bj, sj := scnSplitSpace(ps[j])
		ps[i], ps[j] = bj+si, bi+sj
		return strings.Join(ps, ""), nil

	case scnTruncate:
		return scnTruncateTo(a.Text, 85), nil

	case scnTruncateMore:
		return scnTruncateTo(a.Text, 70+e.r.IntN(16)), nil

	case scnHeaderTruncate:
		hs := scnHeaders[lang]
		h := fmt.Sprintf(hs[e.r.IntN(len(hs))], 10+e.r.IntN(190))
		return h + "\n" + scnTruncateTo(a.Text, 75+e.r.IntN(11)), nil

	case scnPunctWidth:
		if lang == "zh" {
			return scnPunctToASCII.Replace(a.Text), nil
		}
		return scnPunctToFull.Replace(a.Text), nil

	case scnRewrite:
		ps := scnPieces(a.Text)
		el := scnEligible(ps, minRunes)
		if len(el) == 0 {
			return "", fmt.Errorf("no sentence of %d runes or more", minRunes)
		}
		m := max(1, (len(el)+5)/10)
		for _, k := range e.r.Perm(len(el))[:m] {
			i := el[k]
			body, space := scnSplitSpace(ps[i])
			if e.r.IntN(2) == 0 {
				if swapped, ok := e.swapWords(body, lang); ok {
					ps[i] = swapped + space
					continue
				}
			}
			s, err := e.donorSentence(a, lang)
			if err != nil {
				return "", err
			}
			ps[i] = s + space
		}
		return strings.Join(ps, ""), nil
	}
	return "", fmt.Errorf("unknown edit kind %q", kind)
}

// scnTruncateTo returns the first pct percent of text's runes.
func scnTruncateTo(text string, pct int) string {
	n := utf8.RuneCountInString(text) * pct / 100
	off := 0
	for range n {
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return text[:off]
}

// scnChainKinds are the edits a copy of a copy and the links of a chain
// are made with: each keeps most of the text it edits.
var scnChainKinds = []string{scnDeleteSentence, scnInsertSentence, scnRewrite, scnSwapParagraphs, scnTruncate}

// derived makes the copies of a that are made from other copies, after
// the copies of kinds of a (one each, in that order): a copy-copy (an
// edit of one of them, picked at random among the first six) and a
// chain of three (chain-1 an edit of a, chain-2 an edit of chain-1,
// chain-3 an edit of chain-2), each edit of a kind of scnChainKinds.
// Their Original is a; Parent says which text each was made from.
func (e *scnEditor) derived(a *scnDoc, copies []scnDoc) ([]scnDoc, error) {
	var out []scnDoc
	edit := func(id, kind, text string) (scnDoc, error) {
		// A kind the text does not allow (two long paragraphs to swap)
		// passes to the next one.
		first := e.r.IntN(len(scnChainKinds))
		var errs []string
		for i := range scnChainKinds {
			k := scnChainKinds[(first+i)%len(scnChainKinds)]
			t, err := e.edit(&scnDoc{ID: a.ID, Text: text}, k)
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("%s: %v", k, err))
			case t == text:
				errs = append(errs, k+": the edit changed nothing")
			default:
				return scnDoc{ID: a.ID + "#" + kind, Title: a.Title, Text: t, Kind: kind, Original: a.ID, Parent: id}, nil
			}
		}
		return scnDoc{}, fmt.Errorf("%s of %s: no edit applies: %s", kind, a.ID, strings.Join(errs, "; "))
	}
	p := &copies[e.r.IntN(min(6, len(copies)))]
	c, err := edit(p.ID, scnCopyOfCopy, p.Text)
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	parent, text := a.ID, a.Text
	for _, kind := range []string{scnChain1, scnChain2, scnChain3} {
		c, err := edit(parent, kind, text)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		parent, text = c.ID, c.Text
	}
	return out, nil
}

// scnSep is what separates two sentences within a paragraph.
func scnSep(lang string) string {
	if lang == "zh" {
		return ""
	}
	return " "
}

// donorSentence picks a sentence (without its white space) of another
// article in the same language.
func (e *scnEditor) donorSentence(a *scnDoc, lang string) (string, error) {
	var donors []*scnDoc
	for i := range e.articles {
		d := &e.articles[i]
		if d.ID != a.ID && scnLang(d.ID) == lang {
			donors = append(donors, d)
		}
	}
	if len(donors) == 0 {
		return "", fmt.Errorf("no other %s article to take a sentence from", lang)
	}
	d := donors[e.r.IntN(len(donors))]
	ps := scnPieces(d.Text)
	el := scnEligible(ps, scnMinRunes(lang))
	if len(el) == 0 {
		return "", fmt.Errorf("donor %s: no sentence of %d runes or more", d.ID, scnMinRunes(lang))
	}
	body, _ := scnSplitSpace(ps[el[e.r.IntN(len(el))]])
	return strings.TrimLeftFunc(body, unicode.IsSpace), nil
}

// swapWords exchanges two words of a sentence: two space-separated words
// in English, two 2-rune chunks in Chinese. It reports false when the
// sentence has fewer than two.
func (e *scnEditor) swapWords(s, lang string) (string, bool) {
	var words []string
	if lang == "zh" {
		rs := []rune(s)
		for i := 0; i < len(rs); i += 2 {
			words = append(words, string(rs[i:min(i+2, len(rs))]))
		}
	} else {
		words = strings.Split(s, " ")
	}
	if len(words) < 3 {
		return "", false
	}
	// Not the last chunk, which may be shorter or carry the full stop.
	x := e.r.IntN(len(words) - 1)
	y := e.r.IntN(len(words) - 2)
	if y >= x {
		y++
	}
	if words[x] == words[y] {
		return "", false
	}
	words[x], words[y] = words[y], words[x]
	if lang == "zh" {
		return strings.Join(words, ""), true
	}
	return strings.Join(words, " "), true
}
