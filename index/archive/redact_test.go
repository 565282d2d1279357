package archive

import "testing"

// TestRedact: a Redis URL's password is hidden wherever it sits; a
// directory, a URL without a password and the rest of the URL are
// shown as given.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"archive", "archive"},
		{"/srv/news@2024/index", "/srv/news@2024/index"},
		{"user:pw@dir", "user:pw@dir"},
		{"redis://127.0.0.1:7000/news", "redis://127.0.0.1:7000/news"},
		{"redis://default:SECRET@127.0.0.1:7000/news", "redis://default:xxxxx@127.0.0.1:7000/news"},
		{"redis://:SECRET@h1:7000,h2:7001/news?wait_replicas=1", "redis://:xxxxx@h1:7000,h2:7001/news?wait_replicas=1"},
		{"rediss://u:SE/CR@ET@h:6380/news", "rediss://u:xxxxx@h:6380/news"},
		{"redis://u:SECRET@h:7000/news?addr=h2:7001&dial_timeout=3s", "redis://u:xxxxx@h:7000/news?addr=h2:7001&dial_timeout=3s"},
		{"redis://justauser@h:7000/news", "redis://justauser@h:7000/news"},
		{"redis://u:SECRET@", "redis://u:xxxxx@"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
