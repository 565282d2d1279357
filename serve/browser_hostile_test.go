package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	dto "github.com/prometheus/client_model/go"
)

// TestBrowserCrossSite: a page of another origin, in Chromium, sends
// the writes a page can send without a preflight (no-cors fetch of a
// text/plain body, and the same asking for application/json, which
// no-cors drops) and a form post, to a server without a token: each
// reaches the server and is refused, and nothing is archived. Before
// (#31 item 3), the text/plain fetch added the document.
func TestBrowserCrossSite(t *testing.T) {
	ctx := browser(t)
	s := newTestServer(t, Options{KeepText: true})
	target := listen(t, s)
	doc := js(t, map[string]string{"id": "planted", "title": "planted", "text": fixture(t, "a.txt")})
	page := fmt.Sprintf(`<!doctype html><title>attacker</title><body>
<form id="f" method="POST" enctype="text/plain" action="%[1]s/v1/documents" target="sink"><input name='{"x":"' value='"}'></form>
<iframe name="sink"></iframe>
<script>
(async () => {
  const body = %[2]s;
  const sent = [];
  for (const h of [{"Content-Type": "text/plain"}, {"Content-Type": "application/json"}]) {
    try { await fetch(%[3]q + "/v1/documents", {method: "POST", mode: "no-cors", headers: h, body: body}); sent.push("ok"); }
    catch (e) { sent.push(String(e)); }
  }
  try { await fetch(%[3]q + "/v1/documents/planted", {method: "DELETE", mode: "no-cors"}); } catch (e) {}
  document.getElementById("f").submit();
  document.title = "sent " + sent.join(",");
})();
</script>`, target, js(t, doc), target)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer attacker.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(attacker.URL+"/"),
		chromedp.Poll[chromedp.Void](`document.title.startsWith("sent")`),
	)
	if err != nil {
		t.Fatalf("the attacker's page: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	// The form's post arrives after the page says it sent: wait for the
	// server to have answered 3 POSTs.
	refused := func() float64 {
		n := 0.0
		for _, code := range []string{"403", "415"} {
			n += counter(t, s, "POST /v1/documents", code)
		}
		return n
	}
	for i := 0; i < 400 && refused() < 3; i++ { // up to 20 s: a bound, not an assertion
		time.Sleep(50 * time.Millisecond)
	}
	if got := refused(); got != 3 {
		t.Errorf("the attacker page's POSTs refused: %v, want 3 (page: %q)", got, title)
	}
	if _, err := s.o.Index.Get(t.Context(), "planted"); err == nil {
		t.Error("a page of another site added a document")
	}
	if n := counter(t, s, "POST /v1/documents", "201"); n != 0 {
		t.Errorf("%v adds answered 201", n)
	}
	if !strings.Contains(title, "sent") {
		t.Errorf("page title %q", title)
	}
}

// counter is the count of requests to route answered with code.
func counter(t *testing.T, s *Server, route, code string) float64 {
	var m dto.Metric
	if err := s.metrics.requests.WithLabelValues(route, code).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestBrowserRefusedAdd: "Check and add" of an article whose id the
// archive holds for another text says it was not added, and why (the
// answer's archived: "different"). Before, the page said "No
// near-duplicate", as for an article it added.
func TestBrowserRefusedAdd(t *testing.T) {
	ctx := browser(t)
	s := newTestServer(t, Options{KeepText: true})
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": "2024/x", "text": fixture(t, "c.txt")})); w.Code != 201 {
		t.Fatalf("add: %d %s", w.Code, w.Body)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#text")),
		chromedp.SetValue(chromedp.CSS("#text"), fixture(t, "a.txt")),
		chromedp.SetValue(chromedp.CSS("#id"), "2024/x"),
		chromedp.Click(chromedp.CSS("#add")),
		chromedp.WaitVisible(chromedp.CSS("#verdict.dup")),
	)
	if err != nil {
		t.Fatalf("check and add from the page: %v", err)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if want := "未添加 Not added: the archive holds a different article under the id 2024/x (delete it first to replace it)"; err != nil || verdict != want {
		t.Errorf("verdict %q (%v), want %q", verdict, err, want)
	}
	if d, err := s.o.Index.Get(t.Context(), "2024/x"); err != nil || d.Text != fixture(t, "c.txt") {
		t.Errorf("the archived article changed: %v", err)
	}
}

// TestBrowserNoMarkup: ids, titles and texts are shown as text, never
// as markup: a match whose title, id and text hold script and img
// elements with handlers runs none of them. It held in #31's red team;
// this keeps it.
func TestBrowserNoMarkup(t *testing.T) {
	ctx := browser(t)
	s := newTestServer(t, Options{KeepText: true})
	evil := `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": `x"><svg onload="document.title='pwned'">`, "title": evil,
		"text": fixture(t, "b.txt") + evil})); w.Code != 201 {
		t.Fatalf("add: %d %s", w.Code, w.Body)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#text")),
		chromedp.SetValue(chromedp.CSS("#text"), fixture(t, "a.txt")+evil),
		chromedp.Click(chromedp.CSS("#check")),
		chromedp.WaitVisible(chromedp.CSS("#matches li")),
		chromedp.WaitVisible(chromedp.CSS("#compare")),
	)
	if err != nil {
		t.Fatalf("check from the page: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.title + " | " + document.querySelectorAll("main img, main script, main svg, #matches img, #side-a img, #side-b img").length + " | " + document.querySelector("#matches .title").textContent`))
	if want := "neardup — 查重 check before publishing | 0 | " + evil; err != nil || got != want {
		t.Errorf("after showing the match: %q (%v), want %q", got, err, want)
	}
}
