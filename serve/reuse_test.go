package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/reuse"
)

// newReuseServer is newTestServer over an archive with a reuse index.
func newReuseServer(t testing.TB) *Server {
	t.Helper()
	a := testfixtures.Analyzer(t, "")
	x, err := memstore.Open(t.Context(), &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	ri, err := reuse.Open(t.Context(), x, nil, reuse.Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Index: x, Analyzer: a, KeepText: true, Reuse: ri, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	reuseLong  = "The committee approved the budget on Tuesday after a long debate about school funding and road repairs in the northern districts. Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early. A new library will open downtown next spring with a children's wing, a maker space and extended evening hours for students."
	reusePiece = "Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early. The mayor did not comment on the plans for the summer festival, which remain uncertain after the budget vote."
)

// POST /v1/check?reuse=true lists the archived articles that share
// passages with the article, with both shares and the passages;
// articles added through the API are filed in the reuse index.
func TestCheckReuse(t *testing.T) {
	s := newReuseServer(t)
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": "long", "title": "Council news", "text": reuseLong})); w.Code != http.StatusCreated {
		t.Fatalf("add: %d %s", w.Code, w.Body)
	}
	w := do(s, "POST", "/v1/check?reuse=true", js(t, map[string]string{"text": reusePiece}))
	if w.Code != http.StatusOK {
		t.Fatalf("check: %d %s", w.Code, w.Body)
	}
	var got struct {
		Verdict string        `json:"verdict"`
		Reuse   *reuse.Answer `json:"reuse"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Verdict != "new" || got.Reuse == nil || len(got.Reuse.Matches) != 1 {
		t.Fatalf("check answer %s: want new, one reuse match", w.Body)
	}
	m := got.Reuse.Matches[0]
	start := strings.Index(reuseLong, "Heavy rain")
	end := strings.Index(reuseLong, " A new library")
	if m.ID != "long" || m.Title != "Council news" || len(m.Passages) != 1 ||
		m.Passages[0].Here != (reuse.Span{Start: 0, End: end - start}) || m.Passages[0].There != (reuse.Span{Start: start, End: end}) ||
		m.Here < 0.5 || m.There > 0.4 {
		t.Errorf("reuse match %+v: want long, the rain paragraph at 0 and %d, most of the piece, a third of long", m, start)
	}
	// Without reuse=true the answer has no reuse field.
	if w := do(s, "POST", "/v1/check", js(t, map[string]string{"text": reusePiece})); strings.Contains(w.Body.String(), `"reuse"`) {
		t.Errorf("check without reuse=true: %s", w.Body)
	}
	if w := do(s, "POST", "/v1/check?reuse=maybe", js(t, map[string]string{"text": reusePiece})); w.Code != http.StatusBadRequest {
		t.Errorf("reuse=maybe: %d %s, want 400", w.Code, w.Body)
	}
	// An article added by check is filed too: the long one finds it.
	if w := do(s, "POST", "/v1/check?add=true", js(t, map[string]string{"id": "piece", "text": reusePiece})); w.Code != http.StatusOK {
		t.Fatalf("check and add: %d %s", w.Code, w.Body)
	}
	w = do(s, "POST", "/v1/check?reuse=true", js(t, map[string]string{"id": "long", "text": reuseLong}))
	if !strings.Contains(w.Body.String(), `"reuse":{"matches":[{"id":"piece"`) {
		t.Errorf("check of long: %s, want piece among the reuse matches", w.Body)
	}
	if w := do(s, "GET", "/v1/info", ""); !strings.Contains(w.Body.String(), `"reuse":true`) {
		t.Errorf("info: %s, want reuse true", w.Body)
	}
}

// A server without a reuse index answers reuse=true with 409, and a
// reuse index needs kept texts.
func TestCheckReuseMissing(t *testing.T) {
	s := newTestServer(t, Options{KeepText: true})
	w := do(s, "POST", "/v1/check?reuse=true", js(t, map[string]string{"text": reusePiece}))
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "no reuse index") {
		t.Errorf("reuse=true without a reuse index: %d %s, want 409", w.Code, w.Body)
	}
	x, err := memstore.Open(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ri, err := reuse.Open(t.Context(), x, nil, reuse.Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Index: x, Analyzer: testfixtures.Analyzer(t, ""), Reuse: ri}); err == nil || !strings.Contains(err.Error(), "KeepText") {
		t.Errorf("New with Reuse and no KeepText: %v", err)
	}
}

// TestBrowserReuse: on the page of a server with a reuse index, an
// article made of a paragraph of an archived one lists it as partial
// reuse, with both shares, and shows the two texts side by side.
func TestBrowserReuse(t *testing.T) {
	ctx := browser(t)
	s := newReuseServer(t)
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": "long", "title": "Council news", "text": reuseLong})); w.Code != http.StatusCreated {
		t.Fatalf("add: %d %s", w.Code, w.Body)
	}
	ans, err := s.o.Reuse.Find(t.Context(), reusePiece, "")
	if err != nil || len(ans.Matches) != 1 {
		t.Fatalf("Find: %+v, %v", ans, err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	err = chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#text")),
	)
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("info").textContent.includes("1 documents")`))
	}
	if err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#text"), reusePiece),
		chromedp.Focus(chromedp.CSS("#text")),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS("#matches li.reuse")),
		chromedp.WaitVisible(chromedp.CSS("#side-b mark")),
	)
	if err != nil {
		t.Fatalf("checking the article on the page: %v", err)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil || !strings.Contains(verdict, "1 archived article shares passages with it (partial reuse)") {
		t.Errorf("verdict %q, %v", verdict, err)
	}
	item, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#matches li.reuse")))
	if err != nil {
		t.Fatal(err)
	}
	m := ans.Matches[0]
	for _, want := range []string{"partial reuse", "Council news", "long",
		fmt.Sprintf("%d%% of this article is in it · %d%% of it is in this article · 1 passage", int(math.Round(100*m.Here)), int(math.Round(100*m.There)))} {
		if !strings.Contains(item, want) {
			t.Errorf("the reuse match shows %q, without %q", item, want)
		}
	}
}

// FuzzCheckReuse: POST /v1/check?reuse=true (and with add=true) on a
// server with a reuse index answers any body with JSON: 200 with a
// reuse answer whose passages lie inside the texts, or an error.
func FuzzCheckReuse(f *testing.F) {
	fuzzSeeds(f)
	f.Add(js(f, map[string]string{"id": "p", "text": reusePiece}))
	f.Add(js(f, map[string]string{"text": reuseLong + " " + reusePiece}))
	s := newReuseServer(f)
	if w := do(s, "POST", "/v1/documents", js(f, map[string]string{"id": "long", "text": reuseLong})); w.Code != http.StatusCreated {
		f.Fatalf("add: %d %s", w.Code, w.Body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, target := range []string{"/v1/check?reuse=true", "/v1/check?reuse=true&add=true"} {
			w := do(s, "POST", target, body)
			checkAnswer(t, target, w.Code, w.Body.String(), 200, 400, 413)
			if w.Code != 200 {
				continue
			}
			var c struct {
				Fingerprint string        `json:"fingerprint"`
				Reuse       *reuse.Answer `json:"reuse"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || (c.Fingerprint != "") != (c.Reuse != nil) {
				t.Fatalf("%s: answer %s", target, w.Body)
			}
			if c.Reuse == nil {
				continue
			}
			var a struct{ Text string }
			json.Unmarshal([]byte(body), &a)
			for _, m := range c.Reuse.Matches {
				for _, p := range m.Passages {
					if p.Here.Start < 0 || p.Here.End > len(a.Text) || p.Here.Start >= p.Here.End {
						t.Fatalf("%s: passage %+v outside the %d bytes of the text", target, p, len(a.Text))
					}
				}
			}
		}
	})
}
