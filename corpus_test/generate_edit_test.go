package corpus_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScnPieces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One. Two! Three?", []string{"One. ", "Two! ", "Three?"}},
		{"It costs 3.14 dollars. Next", []string{"It costs 3.14 dollars. ", "Next"}},
		{"He said \"Go.\" Then left.", []string{"He said \"Go.\" ", "Then left."}},
		{"Wait... what?! Yes.\n", []string{"Wait... ", "what?! ", "Yes.\n"}},
		{"第一句。第二句！\n第三行", []string{"第一句。", "第二句！\n", "第三行"}},
		{"他说：“好。”然后走了。", []string{"他说：“好。”", "然后走了。"}},
		{"line one\nline two\n", []string{"line one\n", "line two\n"}},
		{"a\n\n\nb", []string{"a\n\n\n", "b"}},
		{"www.debian.org is up", []string{"www.debian.org is up"}},
	} {
		if got := scnPieces(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("scnPieces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScnParagraphs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a\nb\nc\nd", []string{"a\n", "b\n", "c\n", "d"}},
		{"a\nb\n\nc\nd\n", []string{"a\n", "b\n", "\n", "c\n", "d\n"}},
		// Fewer than 4 lines: runs of 5 sentences.
		{"1. 2. 3. 4. 5. 6. 7.", []string{"1. 2. 3. 4. 5. ", "6. 7."}},
		{"a\nb. c.", []string{"a\nb. c."}},
	} {
		if got := scnParagraphs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("scnParagraphs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScnPunctWidth(t *testing.T) {
	if got, want := scnPunctToFull.Replace("Hi, you (me): ok. Yes! No? a;b"), "Hi， you （me）： ok。 Yes！ No？ a；b"; got != want {
		t.Errorf("to full width: %q, want %q", got, want)
	}
	if got, want := scnPunctToASCII.Replace("你好，我（们）：好。是！否？甲；乙"), "你好,我(们):好.是!否?甲;乙"; got != want {
		t.Errorf("to ASCII: %q, want %q", got, want)
	}
}

// scnTestArticles are small articles in both languages for the
// generator's tests.
var scnTestArticles = []scnDoc{
	{ID: "en/1", Title: "One", Text: "The first paragraph has a sentence that is long enough. And a second sentence that is also long enough.\n" +
		"The second paragraph talks about something else entirely, at length.\nShort line\n" +
		"The last paragraph ends the article with one more long sentence. Really the end of it all."},
	{ID: "en/2", Title: "Two", Text: "Another article about spreadsheets and their formulas in detail.\n" +
		"Cells can hold numbers, text or formulas that refer to other cells.\n" +
		"Formulas start with an equals sign and may call functions.\nThe end of the second article comes here."},
	{ID: "zh-CN/1", Title: "一", Text: "这是第一段，包含一个足够长的句子。这里还有第二个足够长的句子！\n第二段讲的是完全不同的事情，而且很长。\n短行\n最后一段用一个很长的句子结束整篇文章。"},
	{ID: "zh-CN/2", Title: "二", Text: "另一篇文章详细介绍电子表格和公式的用法。\n单元格可以包含数字、文本或者引用其他单元格的公式。\n" +
		"公式以等号开头，可以使用各种函数进行计算。\n最后一行说明如何保存和导出工作表。"},
}

func TestScnEdits(t *testing.T) {
	ed := &scnEditor{r: scnRand("test"), articles: scnTestArticles}
	// Ten rounds of every kind on every article.
	for round := range 10 {
		for i := range scnTestArticles {
			a := &scnTestArticles[i]
			lang := scnLang(a.ID)
			for _, kind := range scnKinds {
				got, err := ed.edit(a, kind)
				if err != nil {
					t.Fatalf("round %d, %s of %s: %v", round, kind, a.ID, err)
				}
				if got == a.Text {
					t.Errorf("%s of %s changed nothing", kind, a.ID)
				}
				if msg := scnCheckEdit(a, got, kind, lang); msg != "" {
					t.Errorf("round %d, %s of %s: %s\ngot %q", round, kind, a.ID, msg, got)
				}
			}
		}
	}
}

// scnCheckEdit checks that an edited text is what its kind says.
func scnCheckEdit(a *scnDoc, got, kind, lang string) string {
	orig := a.Text
	switch kind {
	case scnReprint:
		head, rest, ok := strings.Cut(got, "\n"+orig+"\n")
		if !ok || strings.Contains(head, "\n") || strings.Contains(rest, "\n") || head == "" || rest == "" {
			return "not one header line, the original and one footer line"
		}
	case scnDeleteSentence:
		ps, gs := scnPieces(orig), scnPieces(got)
		if len(gs) != len(ps)-1 {
			return "not one sentence fewer"
		}
		i := 0
		for i < len(gs) && gs[i] == ps[i] {
			i++
		}
		if !slices.Equal(gs[i:], ps[i+1:]) || utf8.RuneCountInString(strings.TrimSpace(ps[i])) < scnMinRunes(lang) {
			return "not the original without one long sentence"
		}
	case scnInsertSentence:
		// Removing one sentence of another article gives the original.
		for _, d := range scnTestArticles {
			if d.ID == a.ID || scnLang(d.ID) != lang {
				continue
			}
			for _, p := range scnPieces(d.Text) {
				b, _ := scnSplitSpace(p)
				for _, s := range []string{b + "\n", b + " ", " " + b, b} {
					if strings.Replace(got, s, "", 1) == orig {
						return ""
					}
				}
			}
		}
		return "not the original with a sentence of another article inserted"
	case scnSwapParagraphs:
		po, pg := scnParagraphs(orig), scnParagraphs(got)
		trim := func(ps []string) []string {
			out := make([]string, len(ps))
			for i, p := range ps {
				out[i] = strings.TrimSpace(p)
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(trim(po), trim(pg)) {
			return "not the same paragraphs"
		}
		diff := 0
		for i := range po {
			if po[i] != pg[i] {
				diff++
			}
		}
		if diff != 2 {
			return "not two paragraphs exchanged"
		}
	case scnTruncate:
		if !strings.HasPrefix(orig, got) || utf8.RuneCountInString(got) != utf8.RuneCountInString(orig)*85/100 {
			return "not the first 85% of the runes"
		}
	case scnPunctWidth:
		if lang == "zh" {
			if strings.ContainsAny(got, "，。！？：；（）") {
				return "full-width punctuation left"
			}
		} else if strings.ContainsAny(got, ",.!?:;()") || strings.NewReplacer("，", ",", "。", ".", "！", "!", "？", "?", "：", ":", "；", ";", "（", "(", "）", ")").Replace(got) != orig {
			return "not the original with full-width punctuation"
		}
	case scnRewrite:
		ps, gs := scnPieces(orig), scnPieces(got)
		kept := 0
		for _, p := range gs {
			if i := slices.Index(ps, p); i >= 0 {
				kept++
				ps = slices.Delete(ps, i, i+1)
			}
		}
		if kept < len(scnPieces(orig))-2 {
			return "more than two sentences changed in so short an article"
		}
	default:
		return "unknown kind"
	}
	return ""
}

func TestScnCopiesDeterministic(t *testing.T) {
	mk := func() []scnDoc {
		c, err := (&scnEditor{r: scnRand("test"), articles: scnTestArticles}).copies(14)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := mk(), mk()
	if string(scnJSONL(a)) != string(scnJSONL(b)) {
		t.Error("two runs with the same seed made different copies")
	}
	// Copy j is of article j mod 4, kind j mod 7.
	for j, c := range a {
		if c.Original != scnTestArticles[j%4].ID || c.Kind != scnKinds[j%7] || c.ID != c.Original+"#"+c.Kind {
			t.Errorf("copy %d: id %s, kind %s, original %s", j, c.ID, c.Kind, c.Original)
		}
	}
	other, err := (&scnEditor{r: scnRand("other"), articles: scnTestArticles}).copies(14)
	if err != nil {
		t.Fatal(err)
	}
	if string(scnJSONL(other)) == string(scnJSONL(a)) {
		t.Error("another scenario's seed made the same copies")
	}
}

func FuzzScnPieces(f *testing.F) {
	for _, s := range []string{"", "One. Two! Three?", "第一句。第二句！\n第三行", "a\n\n\nb", "\"Go.\" Then.", "x.\xff y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps := scnPieces(s)
		if strings.Join(ps, "") != s {
			t.Fatalf("pieces %q do not make up %q", ps, s)
		}
		for _, p := range ps {
			if p == "" {
				t.Fatalf("empty piece in %q", ps)
			}
		}
		if s != "" {
			if got := strings.Join(scnParagraphs(s), ""); got != s {
				t.Fatalf("paragraphs make up %q, not %q", got, s)
			}
		}
	})
}
