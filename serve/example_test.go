package serve_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/serve"
)

// A server over an archive in memory: add an article, then check a
// reprint with a source note, 8 bits away and found by its content
// bands.
func Example() {
	ctx := context.Background()
	a, err := testfixtures.Analyzers.Get(nil) // neardup.NewAnalyzer(nil) outside the tests
	if err != nil {
		panic(err)
	}
	x, err := memstore.Open(ctx, &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		panic(err)
	}
	defer x.Close()
	s, err := serve.New(serve.Options{Index: x, Analyzer: a, KeepText: true})
	if err != nil {
		panic(err)
	}
	text := "新华社北京10月30日电 武侠小说泰斗金庸（原名查良镛）30日在香港逝世，享年94岁。金庸先生的武侠小说影响了几代读者，《射雕英雄传》《天龙八部》《笑傲江湖》等作品被多次改编为影视剧。"
	post := func(path, body string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json") // a write needs it
		s.ServeHTTP(w, r)
		fmt.Print(w.Code, " ", w.Body)
	}
	post("/v1/documents", `{"id": "2018/1030-jinyong", "title": "金庸逝世", "text": "`+text+`"}`)
	post("/v1/check", `{"text": "`+text+`本文转载自新华网。"}`)
	// Output:
	// 201 {"id":"2018/1030-jinyong","fingerprint":"3230bef29d4987d3","replaced":false}
	// 200 {"fingerprint":"33303ed2984987c0","verdict":"duplicate","matches":[{"id":"2018/1030-jinyong","title":"金庸逝世","distance":8,"similarity":0.875,"content":0.9450980392156862,"exact":false,"shared_keywords":["金庸","武侠小说","查良镛","射雕","天龙八部","笑傲江湖","泰斗","英雄传","享年","影视剧","几代","逝世","改编","读者","新华社","日电","原名","多次","作品","香港","先生","北京","影响"]}],"added":false}
}
