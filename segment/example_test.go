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
