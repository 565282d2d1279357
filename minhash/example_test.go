package minhash_test

import (
	"fmt"

	"github.com/neardup/neardup/minhash"
)

func ExampleSketch_Jaccard() {
	a := minhash.New("近日，教育部发布了关于做好2019年普通高校招生工作的通知。")
	b := minhash.New("近日，教育部发布了关于做好2019年普通高校招生工作的通知，请考生留意。")
	c := minhash.New("国家统计局今日公布了十月份的居民消费价格指数。")
	// The exact Jaccard similarities of the 5-gram sets are 25/33 = 0.76
	// and 0; with 64 values the estimate's standard error is about 0.05.
	fmt.Printf("%.2f %.2f\n", a.Jaccard(b), a.Jaccard(c))
	// Output:
	// 0.64 0.00
}
