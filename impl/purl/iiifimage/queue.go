package iiifimage

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrBusy: every build slot is taken and the queue of waiting builds is
// full; the client should come back later (503 with Retry-After).
var ErrBusy = errors.New("the image service is busy: too many images are being prepared")

// workQueue bounds the vips work running at once (pyramid builds and
// derived images): at most cap(slots) run, at most maxWaiting wait for a
// slot, the rest are refused with ErrBusy.
type workQueue struct {
	slots      chan struct{}
	maxWaiting int64
	waiting    atomic.Int64
	rejected   atomic.Int64
}

func newWorkQueue(running, waiting int) *workQueue {
	return &workQueue{slots: make(chan struct{}, running), maxWaiting: int64(waiting)}
}

// acquire takes a slot, waiting in the queue when there is room in it.
func (q *workQueue) acquire(ctx context.Context) (release func(), err error) {
	release = func() { <-q.slots }
	select {
	case q.slots <- struct{}{}:
		return release, nil
	default:
	}
	if q.waiting.Add(1) > q.maxWaiting {
		q.waiting.Add(-1)
		q.rejected.Add(1)
		return nil, fmt.Errorf("%w (%d running, %d waiting)", ErrBusy, cap(q.slots), q.maxWaiting)
	}
	defer q.waiting.Add(-1)
	select {
	case q.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		// Busy, not failed: a build that waited too long is not remembered.
		return nil, fmt.Errorf("%w: waited for a build slot: %w", ErrBusy, ctx.Err())
	}
}

func (q *workQueue) running() int { return len(q.slots) }
