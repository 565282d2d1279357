//go:build gojieba && cgo

package segment

/*
#cgo LDFLAGS: -lm
#include <math.h>
static double neardup_libm_log(double x) { return log(x); }
*/
import "C"

// libmLog is the C library's log, which cppjieba weighs words with; the
// gojieba build's tests check crLog against it.
func libmLog(x float64) float64 { return float64(C.neardup_libm_log(C.double(x))) }
