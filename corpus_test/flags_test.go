package corpus_test

import "flag"

// update rewrites the committed fixtures and goldens instead of comparing
// with them: go test ./corpus_test -update.
var update = flag.Bool("update", false, "rewrite the generated fixtures and golden files in testdata")
