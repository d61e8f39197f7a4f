package testkit

import "sync"

// Repeaters run steps over and over, each in a goroutine of its own, while
// a test does something else at the same time (readers racing writers);
// Stop ends them all and waits for them.
type Repeaters struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

// NewRepeaters returns Repeaters running nothing yet.
func NewRepeaters() *Repeaters {
	return &Repeaters{stop: make(chan struct{})}
}

// Go runs step in a goroutine of its own, again and again, until Stop is
// called or step says it is done.
func (r *Repeaters) Go(step func() (done bool)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			select {
			case <-r.stop:
				return
			default:
			}
			if step() {
				return
			}
		}
	}()
}

// Stop tells every step to end after its current run and waits until
// they have. It is called once.
func (r *Repeaters) Stop() {
	close(r.stop)
	r.wg.Wait()
}
