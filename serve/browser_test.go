package serve

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/neardup/neardup/internal/testfixtures"
)

// chromium is where Debian's chromium package installs the browser.
const chromium = "/usr/bin/chromium"

// browser starts a headless Chromium with a fresh profile for the test,
// or skips the test when none is installed (failing when CI=true).
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromium); err != nil {
		msg := "no Chromium at " + chromium + ": install it with apt-get install -y chromium fonts-wqy-microhei (the font renders Chinese)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// TestBrowser drives the editors' page in Chromium: an editor pastes a
// Chinese article whose reprint is in the archive and presses Ctrl+Enter;
// the page shows the match and, side by side, both texts with the
// shared passages marked. Screenshots (desktop and phone width) are
// written under the test's temporary directory, or NEARDUP_SCREENSHOTS
// when set, and their paths printed.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	a, b, c := fixture(t, "a.txt"), fixture(t, "b.txt"), fixture(t, "c.txt")
	s := newTestServer(t, Options{KeepText: true})
	for _, d := range []map[string]any{
		{"id": "2018/reprint-show-dialog", "title": "转载：显示对话框", "text": b},
		{"id": "gnome/bluetooth", "title": "Bluetooth", "text": c},
	} {
		if w := do(s, "POST", "/v1/documents", js(t, d)); w.Code != 201 {
			t.Fatalf("adding %v: %d %s", d["id"], w.Code, w.Body)
		}
	}
	hs := httptest.NewServer(s)
	defer hs.Close()

	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#text")),
	)
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("info").textContent.includes("2 documents")`))
	}
	if err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#text"), a),
		chromedp.Focus(chromedp.CSS("#text")),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS("#matches li")),
		chromedp.WaitVisible(chromedp.CSS("#side-b mark")),
	)
	if err != nil {
		t.Fatalf("checking the article on the page: %v", err)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil || !strings.Contains(verdict, "1 near-duplicate in the archive") {
		t.Errorf("verdict %q, %v", verdict, err)
	}
	match, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#matches li")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"转载：显示对话框", "2018/reprint-show-dialog", "distance 1", "content similarity 0.97", "对话框、控件、编辑器"} {
		if !strings.Contains(match, want) {
			t.Errorf("the match shows %q, without %q", match, want)
		}
	}
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#side-a mark")].map(m => m.textContent)`))
	if err != nil || len(marks) == 0 {
		t.Fatalf("marked passages of the article: %q, %v", marks, err)
	}
	for _, m := range marks {
		if !strings.Contains(a, m) || !strings.Contains(b, m) {
			t.Errorf("marked passage %q is not in both texts", m)
		}
	}
	if !strings.Contains(marks[0], "在创建的对话框所在的 LibreOffice BASIC 窗口中") {
		t.Errorf("first marked passage %q, want the first paragraph the reprint kept", marks[0])
	}
	archived, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#side-b")))
	if err != nil || !strings.Contains(archived, "转载") {
		t.Errorf("the archived side shows %q (%v): want the reprint's text with its source note", archived, err)
	}

	// The keyboard: Tab goes from the article through the form in
	// reading order, and a match's compare button pressed with Enter
	// moves focus to the shared passages.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#text"))); err != nil {
		t.Fatal(err)
	}
	var order []string
	for range 5 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		id, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, id)
	}
	if got := strings.Join(order, " "); got != "title id file check add" {
		t.Errorf("Tab from the article goes through %q, want %q", got, "title id file check add")
	}
	err = chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS("#matches li .actions button")),
		chromedp.KeyEvent("\r"),
	)
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement.id === "compare-heading"`, chromedp.WithPollingTimeout(10*time.Second)))
	}
	if err != nil {
		t.Errorf("Enter on a match's compare button: focus is not on the shared passages: %v", err)
	}

	tokenShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("token-row").offsetParent !== null`))
	if err != nil || tokenShown {
		t.Errorf("the token field is shown by a server without a token (%v)", err)
	}

	dir := os.Getenv("NEARDUP_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(name string) {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	shot("page-desktop.png")

	// Phone width: one column, nothing wider than the screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	if err != nil || !wide {
		t.Errorf("at 390 px the page is wider than the screen (%v)", err)
	}
	shot("page-phone.png")

	// A GBK file, as load (the file input's and the drop zone's
	// handler) reads it: decoded, its name the article's ID.
	gbk := testfixtures.GBK(t, "金庸先生的武侠小说影响了几代读者。")
	nums := make([]string, len(gbk))
	for i := range len(gbk) {
		nums[i] = strconv.Itoa(int(gbk[i]))
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`load(new File([new Uint8Array([`+strings.Join(nums, ",")+`])], "gbk.txt")).then(() => document.getElementById("text").value + "|" + document.getElementById("id").value)`,
		chromedp.EvalAwaitPromise))
	if err != nil || got != "金庸先生的武侠小说影响了几代读者。|gbk.txt" {
		t.Errorf("a GBK file loaded into the page: %q, %v", got, err)
	}
}

// TestBrowserWrites uses the page's write buttons on a server with a
// token: the token field is shown, "check and add" adds a new article
// with the token, and a match's delete button (pressed twice) deletes it.
func TestBrowserWrites(t *testing.T) {
	ctx := browser(t)
	a, b := fixture(t, "a.txt"), fixture(t, "b.txt")
	s := newTestServer(t, Options{KeepText: true, Token: "s3cret"})
	hs := httptest.NewServer(s)
	defer hs.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SetValue(chromedp.CSS("#text"), a),
		chromedp.SetValue(chromedp.CSS("#id"), "2024/show-dialog"),
		chromedp.SetValue(chromedp.CSS("#title"), "显示对话框"),
		chromedp.SetValue(chromedp.CSS("#token"), "s3cret"),
		chromedp.Click(chromedp.CSS("#add")),
		chromedp.WaitVisible(chromedp.CSS("#verdict.new")),
	)
	if err != nil {
		t.Fatalf("adding from the page: %v", err)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil || !strings.Contains(verdict, "added to the archive as 2024/show-dialog") {
		t.Errorf("verdict %q (%v)", verdict, err)
	}
	if d, err := s.o.Index.Get(t.Context(), "2024/show-dialog"); err != nil || d.Title != "显示对话框" || d.Text != a {
		t.Fatalf("after the page's add: %q, %v", d.Title, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("id").value = ""`)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#text"), b),
		chromedp.Click(chromedp.CSS("#check")),
		chromedp.WaitVisible(chromedp.CSS("#matches li .danger")),
		chromedp.Click(chromedp.CSS("#matches li .danger")),
		chromedp.Click(chromedp.CSS("#matches li .danger")),
		chromedp.WaitNotPresent(chromedp.CSS("#matches li")),
	)
	if err != nil {
		t.Fatalf("deleting from the page: %v", err)
	}
	if _, err := s.o.Index.Get(t.Context(), "2024/show-dialog"); err == nil {
		t.Error("the page's delete left the document in the archive")
	}
	// The pressed button went with its match: focus is on the verdict,
	// which says what is left.
	verdict, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil || verdict != "已删除 Deleted 2024/show-dialog · no near-duplicate left in the archive" {
		t.Errorf("verdict after the delete %q (%v)", verdict, err)
	}
	if focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || focused != "verdict" {
		t.Errorf("focus after the delete is on %q (%v), want the verdict", focused, err)
	}
}
