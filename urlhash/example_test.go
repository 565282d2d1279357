package urlhash_test

import (
	"fmt"

	"github.com/neardup/neardup/urlhash"
)

func Example() {
	p, err := urlhash.Normalize("HTTP://WWW.Example.COM:80/新闻/./2018/index.html?b=2&utm_source=x&a=1#top", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)

	c, err := urlhash.Compare(
		"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123",
		"https://baidu.com:8080/1/2/3/4.php?b=2&a=1",
		nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.FingerprintA, c.FingerprintB, c.Distance, c.Similarity, c.Differ)

	_, err = urlhash.Sum("http://[::1/", nil)
	fmt.Println(err)
	// Output:
	// http://example.com/%E6%96%B0%E9%97%BB/2018/?a=1&b=2#top
	// fb277e2616ef1564 fb27fe2616ef1464 2 0.96875 [scheme fragment]
	// urlhash: invalid URL "http://[::1/": IPv6 literal without ']'
}

func ExampleOptions_ID() {
	fmt.Println((*urlhash.Options)(nil).ID())
	fmt.Println((&urlhash.Options{KeepWWW: true}).ID())
	// Output:
	// urlhash/1-420d1628b36be843
	// urlhash/1-992ce946f231b1fa
}
