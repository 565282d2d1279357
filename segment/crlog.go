package segment

import (
	"math"
	"math/big"
)

// crLog returns the natural logarithm of x > 0 correctly rounded (to
// nearest, ties to even), the same on every architecture.
//
// cppjieba weighs a word of frequency f by log(f/sum) with the C
// library's log, and its route through a sentence compares sums of those
// weights, so a weight one unit in the last place off can change a cut
// where two routes tie. Go's math.Log is not correctly rounded (it differs
// from glibc's for 51 of the dictionary's 5,087 distinct frequencies) and
// its result depends on the architecture; glibc's log (0.52 ulp at most)
// gives the correctly rounded value for all 5,087 (checked against libm in
// the gojieba build, TestLogMatchesLibm) and for all but 7 of the
// frequencies 1 to 200,000 a user dictionary might give (see
// libmLogExceptions).
//
// It works in double-double arithmetic (about 104 bits) and falls back to
// math/big when the result is too close to a rounding boundary to decide.
func crLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x) // NaN, -Inf or +Inf: exact anyway
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	// log(m) = 2·atanh(t), t = (m−1)/(m+1), |t| < 0.172.
	num := dd{m - 1, 0} // exact: m is in [0.7, 1.42)
	den := twoSum(m, 1)
	t := ddDiv(num, den)
	t2 := ddMul(t, t)
	term := t
	sum := t
	for k := 3.0; k < 200; k += 2 {
		term = ddMul(term, t2)
		q := ddDivFloat(term, k)
		if q.hi == 0 || math.Abs(q.hi) < math.Abs(sum.hi)*0x1p-110 {
			break
		}
		sum = ddAdd(sum, q)
	}
	sum = dd{2 * sum.hi, 2 * sum.lo} // exact
	fe := float64(e)
	sum = ddAdd(sum, ddAdd(twoProd(fe, ln2.hi), dd{float64(fe * ln2.lo), 0}))
	// sum.hi is sum.hi+sum.lo rounded to nearest unless sum.lo is within
	// the error of the sum (well under 2^-96 relative) of half an ulp.
	ulp := math.Abs(math.Nextafter(sum.hi, math.Inf(1)) - sum.hi)
	if d := math.Abs(math.Abs(sum.lo) - ulp/2); d < math.Abs(sum.hi)*0x1p-96 {
		return bigLog(x)
	}
	return sum.hi
}

// dd is an unevaluated sum hi+lo of two float64s, |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// ln2 is log(2) in double-double.
var ln2 = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd returns a·b exactly; math.FMA rounds once on every architecture.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(x, y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

// ddMul multiplies; the explicit conversions keep the compiler from
// fusing the cross terms into FMAs on some architectures and not others.
func ddMul(x, y dd) dd {
	p := twoProd(x.hi, y.hi)
	p.lo += float64(x.hi*y.lo) + float64(x.lo*y.hi)
	return quickTwoSum(p.hi, p.lo)
}

func ddMulFloat(x dd, y float64) dd {
	p := twoProd(x.hi, y)
	p.lo += float64(x.lo * y)
	return quickTwoSum(p.hi, p.lo)
}

func ddSub(x, y dd) dd { return ddAdd(x, dd{-y.hi, -y.lo}) }

func ddDiv(x, y dd) dd {
	q1 := x.hi / y.hi
	r := ddSub(x, ddMulFloat(y, q1))
	q2 := r.hi / y.hi
	r = ddSub(r, ddMulFloat(y, q2))
	q3 := r.hi / y.hi
	q := quickTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}

func ddDivFloat(x dd, y float64) dd { return ddDiv(x, dd{y, 0}) }

// bigLog is log(x) correctly rounded by math/big at 200 bits, for the
// rare x whose double-double logarithm is too close to a rounding
// boundary: slow (tens of microseconds) but exact.
func bigLog(x float64) float64 {
	const prec = 200
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	atanhSeries := func(t *big.Float) *big.Float { // 2·atanh(t)
		t2 := nf().Mul(t, t)
		term, sum, q, k := nf().Set(t), nf(), nf(), nf()
		for i := int64(1); i < 2000; i += 2 {
			sum.Add(sum, q.Quo(term, k.SetInt64(i)))
			term.Mul(term, t2)
			if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -prec-8 {
				break
			}
		}
		return sum.Mul(sum, k.SetInt64(2))
	}
	one := nf().SetInt64(1)
	mf := nf().SetFloat64(m)
	t := nf().Quo(nf().Sub(mf, one), nf().Add(mf, one))
	res := atanhSeries(t)
	l2 := atanhSeries(nf().Quo(one, nf().SetInt64(3))) // log 2 = 2·atanh(1/3)
	res.Add(res, l2.Mul(l2, nf().SetInt64(int64(e))))
	f, _ := res.Float64()
	return f
}
