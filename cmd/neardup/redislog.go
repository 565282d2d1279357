package main

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// quietRedis drops go-redis's log lines (a failed dial, a pool that
// gives up): the store returns those failures as errors, which the
// command reports once, in its own words.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// silenceRedis replaces go-redis's logger, which is process-wide: main
// calls it, once, before any run.
func silenceRedis() { redis.SetLogger(quietRedis{}) }
