package neardup_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
)

// An archive in memory (badgerstore.OpenIndex keeps one in a
// directory): add an article, then look up a reprint of it.
func Example_archive() {
	ctx := context.Background()
	a, err := neardup.NewAnalyzer(nil) // embedded dictionaries, default segmenter
	if err != nil {
		panic(err)
	}
	defer a.Close()
	x, err := memstore.Open(ctx, &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		panic(err)
	}
	defer x.Close()

	original := "新华社北京10月30日电 武侠小说泰斗金庸（原名查良镛）30日在香港逝世，享年94岁。金庸先生的武侠小说影响了几代读者，《射雕英雄传》《天龙八部》《笑傲江湖》等作品被多次改编为影视剧。"
	an, err := a.Analyze(original) // neardup.ErrTooShort for fewer than 4 keywords
	if err != nil {
		panic(err)
	}
	if err := x.Add(ctx, dedup.DocOf(an, "2018/1030-jinyong", "金庸逝世", 32)); err != nil {
		panic(err)
	}

	reprint := "本报讯 武侠小说泰斗金庸（原名查良镛）30日在香港逝世，享年94岁。金庸先生的武侠小说影响了几代读者，《射雕英雄传》《天龙八部》《笑傲江湖》等作品被多次改编为影视剧。"
	an, err = a.Analyze(reprint)
	if err != nil {
		panic(err)
	}
	doc := dedup.DocOf(an, "reprint", "", 32)
	matches, err := x.Similar(ctx, &doc, index.DefaultMaxDistance) // exact, SimHash ≤ 3, MinHash bands; confirmed by content
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("%s %q: distance %d, content similarity %.2f\n", m.ID, m.Title, m.Distance, m.Content)
	}
	// Output:
	// 2018/1030-jinyong "金庸逝世": distance 4, content similarity 0.82
}
