package segment_test

import (
	"fmt"

	"github.com/neardup/neardup/segment"
)

func ExampleNormalize() {
	fmt.Printf("%q\n", segment.Normalize("  ＩＰｈｏｎｅ\u200b　16 Pro：发布会\r\n"))
	// Output: "iphone 16 pro:发布会"
}

func ExampleSplitRuns() {
	segment.SplitRuns("iphone 16 发布会在北京举行,apple ceo说", func(run string, han bool) {
		fmt.Printf("%q %v\n", run, han)
	})
	// Output:
	// "iphone" false
	// "16" false
	// "发布会在北京举行" true
	// "apple" false
	// "ceo" false
	// "说" true
}

func ExampleNewGse() {
	seg, err := segment.NewGse(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", seg.Cut(segment.Normalize("iPhone 16 Pro 发布会在北京举行，Apple CEO 说...")))
	// Output: ["iphone" "16" "pro" "发布会" "在" "北京" "举行" "apple" "ceo" "说"]
}

func ExampleNew() {
	_, err := segment.New("mecab", nil)
	fmt.Println(err != nil)
	// Output: true
}

func ExampleNewJieba() {
	seg, err := segment.NewJieba(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", seg.Cut(segment.Normalize("他来到了网易杭研大厦，iPhone 16 Pro 发布会")))
	words, weights := seg.ExtractWithWeight("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪", 3)
	fmt.Printf("%q %.4f\n", words, weights)
	// Output:
	// ["他" "来到" "了" "网易" "杭研" "大厦" "iphone" "16" "pro" "发布会"]
	// ["蓝翔" "升职" "加薪"] [11.7392 10.8562 10.6426]
}
