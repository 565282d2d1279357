package testfixtures

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// Articles that the robustness tests of the library (dedup) and of the
// command put bad inputs between: each has well over neardup.MinKeywords
// keywords and none is a near duplicate of another.
const (
	EN  = "The Federal Reserve raised interest rates by a quarter point on Wednesday, citing strong employment figures and rising inflation. Analysts expect two more increases this year as the economy continues to grow."
	ZH  = "新华社北京10月30日电 武侠小说泰斗金庸（原名查良镛）30日在香港逝世，享年94岁。金庸先生的武侠小说影响了几代读者，《射雕英雄传》《天龙八部》《笑傲江湖》等作品被多次改编为影视剧。"
	EN2 = "Heavy rain flooded the valley roads overnight and the river rose above the old stone bridge, officials said, closing schools across the district for the rest of the week while engineers inspected the damage."
	ZH2 = "国家统计局今天发布数据显示，今年前三季度全国粮食总产量再创历史新高，秋粮丰收已成定局。专家表示，粮食生产连年丰收为稳定物价、保障民生提供了坚实基础。"
	EN3 = "The orchestra opened its winter season with a program of Sibelius and Nielsen, conducted by a young Finnish guest who drew long applause from a sold-out hall on Saturday evening."
)

// PNG is a small PNG image made by image/png.
func PNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range 16 {
		img.Set(i, i, color.RGBA{R: 255, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Zip is a ZIP archive made by archive/zip holding EN as article.txt.
func Zip(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("article.txt")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, EN)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GBK encodes s in GBK.
func GBK(t testing.TB, s string) string {
	t.Helper()
	b, err := simplifiedchinese.GBK.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Gzip compresses s.
func Gzip(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// JSONLine is a JSONL line holding id and text.
func JSONLine(id, text string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "text": text})
	return string(b)
}

// GunzipLen returns how many bytes the truncated gzip data b decompress
// to before the error, which must be io.ErrUnexpectedEOF, with the
// decoder package input reads gzip with (klauspost/compress/gzip: from a
// cut stream it delivers a byte or so fewer than compress/gzip does).
func GunzipLen(t testing.TB, b []byte) int64 {
	t.Helper()
	zr, err := kgzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, bufio.NewReader(zr))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated gzip: %v", err)
	}
	return n
}
