//go:build gojieba && cgo

package segment_test

import (
	"fmt"
	"os"

	"github.com/neardup/neardup/segment"
)

func ExampleNewGojieba() {
	dir, err := os.MkdirTemp("", "jieba-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	seg, err := segment.NewGojieba(&segment.Options{CacheDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer seg.Close()
	fmt.Printf("%q\n", seg.Cut(segment.Normalize("他来到了网易杭研大厦，iPhone 16 Pro 发布会")))
	words, weights := seg.ExtractWithWeight("我是蓝翔技工拖拉机学院手扶拖拉机专业的。不用多久，我就会升职加薪", 3)
	fmt.Printf("%q %.4f\n", words, weights)
	// Output:
	// ["他" "来到" "了" "网易" "杭研" "大厦" "iphone" "16" "pro" "发布会"]
	// ["蓝翔" "升职" "加薪"] [11.7392 10.8562 10.6426]
}
