package serve

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/neardup/neardup/index"
)

// metrics are the server's Prometheus metrics, registered in its own
// registry.
type metrics struct {
	requests *prometheus.CounterVec   // by route and status
	latency  *prometheus.HistogramVec // by route
	analysis prometheus.Histogram
	matches  prometheus.Counter
	writes   *prometheus.CounterVec // by op: added, replaced, deleted
	refused  prometheus.Counter     // requests refused for the memory budget
}

// docsCollector reports the documents in the archive when scraped.
type docsCollector struct {
	x    *index.Index
	desc *prometheus.Desc
}

func (c *docsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *docsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.x.Stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(st.Docs))
}

func newMetrics(reg *prometheus.Registry, x *index.Index) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "neardup_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "neardup_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"route"}),
		analysis: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "neardup_analysis_duration_seconds", Help: "Time to analyse one article (normalise, segment, keywords, fingerprint, sketch).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		matches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_matches_found_total", Help: "Near-duplicates found in the archive by checks.",
		}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "neardup_documents_written_total", Help: "Documents written to the archive, by operation (added, replaced, deleted).",
		}, []string{"op"}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "neardup_http_busy_total", Help: "Requests answered 503 because the analyses under way held the memory budget.",
		}),
	}
	docs := &docsCollector{x: x, desc: prometheus.NewDesc("neardup_archive_documents", "Documents in the archive.", nil, nil)}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.analysis, m.matches, m.writes, m.refused, docs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (s *Server) metricsHandler() handler {
	h := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return func(w http.ResponseWriter, r *http.Request) *apiError {
		h.ServeHTTP(w, r)
		return nil
	}
}
