//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mumax/3/cuda/cu"
	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// errClosed is returned by the calls on a closed Context.
var errClosed = errors.New("gpu: context is closed")

// Context is a CUDA context on one GPU with the embedded kernel modules
// loaded into it.
//
// A CUDA context is current on one OS thread, and goroutines move between
// threads, so every Context has a goroutine locked to its own OS thread
// that created the context and runs every driver call for it: pass the
// calls to Do. Do must not be called from inside a function passed to Do
// (it would wait for itself).
type Context struct {
	ordinal int
	ctx     cu.Context
	modules []loadedModule
	entries map[string]int         // kernel name -> index in modules, from each PTX's .entry lines
	funcs   map[string]cu.Function // Function's cache; used on the thread only

	calls chan func()
	quit  chan struct{} // closed by Close
	done  chan struct{} // closed when the context is destroyed
	once  sync.Once
	err   error // from destroying the context
	// abandoned: a cancelled count left launches running (see abandon).
	abandoned atomic.Bool
	opened    OpenTrace // how long its steps took (Context, Module, SelfTest)
}

// loadedModule is an embedded PTX module; mod is 0 until one of its
// kernels is first needed (Function), when the driver JIT-compiles it.
type loadedModule struct {
	name string
	ptx  string
	mod  cu.Module
}

// newContext creates a context on GPU ordinal, lists the embedded modules
// and runs the self-test, which loads the eightfold kernels' module.
func newContext(ordinal int) (*Context, error) {
	if err := initDriver(); err != nil {
		return nil, err
	}
	c := &Context{
		ordinal: ordinal,
		funcs:   make(map[string]cu.Function),
		calls:   make(chan func()),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	ready := make(chan error, 1)
	go c.serve(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// serve is the context's goroutine. It stays locked to its thread to the
// end, so that the runtime ends the thread with it.
func (c *Context) serve(ready chan<- error) {
	runtime.LockOSThread()
	defer close(c.done)
	start := time.Now()
	err := guard(fmt.Sprintf("create a context on GPU %d", c.ordinal), func() {
		var dev cu.Device
		named("cuDeviceGet", func() { dev = cu.DeviceGet(c.ordinal) })
		named("cuCtxCreate", func() { c.ctx = cu.CtxCreate(ctxSchedBlockingSync, dev) })
		notNull("cuCtxCreate", c.ctx)
	})
	c.opened.Context = time.Since(start)
	if err == nil {
		err = guard(fmt.Sprintf("GPU %d", c.ordinal), func() {
			c.listModules()
			c.selfTest()
		})
		if err != nil {
			c.destroy()
		}
	}
	ready <- err
	if err != nil {
		return
	}
	for {
		select {
		case f := <-c.calls:
			f()
		case <-c.quit:
			c.err = c.destroy()
			return
		}
	}
}

// listModules lists the embedded PTX modules in name order, and notes
// which module declares each kernel (its .entry lines), so that Function
// loads only the module of a kernel asked for, and asks the driver only
// for a kernel the module has. Loading a module is the driver's JIT of its
// PTX: all six took 1.7 s on an H200 (in a process that found the
// driver's cache empty), where a count needs one or two. A lookup that
// fails (CUDA_ERROR_NOT_FOUND) is an API error to compute-sanitizer,
// which made its memcheck fail every run on an H200.
func (c *Context) listModules() {
	ptx := kernels.PTX()
	names := make([]string, 0, len(ptx))
	for name := range ptx {
		names = append(names, name)
	}
	sort.Strings(names)
	c.entries = make(map[string]int)
	for _, name := range names {
		es, err := kernels.Entries(ptx[name])
		if err != nil {
			panic(&Error{Op: "read the kernels of module " + name, Code: cu.ERROR_INVALID_IMAGE, Detail: err.Error()})
		}
		for _, e := range es {
			c.entries[e.Name] = len(c.modules)
		}
		c.modules = append(c.modules, loadedModule{name: name, ptx: ptx[name]})
	}
}

// destroy destroys the context, which unloads its modules and frees its
// memory.
func (c *Context) destroy() error {
	if c.ctx == 0 {
		return nil
	}
	return guard(fmt.Sprintf("destroy the context on GPU %d", c.ordinal), func() { cu.CtxDestroy(&c.ctx) })
}

// Do runs f on the context's thread and waits for it. A panic of the cu
// binding in f comes back as an *Error that names op.
func (c *Context) Do(op string, f func()) error {
	errc := make(chan error, 1)
	select {
	case c.calls <- func() { errc <- guard(op, f) }:
		return <-errc
	case <-c.quit:
		return errClosed
	}
}

// abandon records that a cancelled count left launches running on the
// GPU: destroying the context would wait for them (minutes at large N),
// so Close then does not wait for it.
func (c *Context) abandon() { c.abandoned.Store(true) }

// Close destroys the context. Calls after Close return an error. After a
// cancelled count that left launches running (abandon), Close returns at
// once: the context is destroyed in the background when they end, or
// with the process.
func (c *Context) Close() error {
	c.once.Do(func() { close(c.quit) })
	if c.abandoned.Load() {
		return nil
	}
	<-c.done
	return c.err
}

// Function returns the kernel called name (an extern "C" __global__
// function) from the module that declares it, which it loads the first
// time. It must be called inside Do; it panics like the cu binding when
// the kernel does not exist or its module does not load.
func (c *Context) Function(name string) cu.Function {
	if f, ok := c.funcs[name]; ok {
		return f
	}
	if i, ok := c.entries[name]; ok {
		m := &c.modules[i]
		if m.mod == 0 {
			m.mod = loadModule(m.name, m.ptx) // never 0: it panics instead
		}
		f, ok := moduleFunction(m.mod, name)
		if !ok {
			panic(&Error{Op: fmt.Sprintf("find kernel %q in module %s, whose PTX declares it", name, m.name), Code: cu.ERROR_NOT_FOUND})
		}
		notNull("cuModuleGetFunction "+name, f)
		c.funcs[name] = f
		return f
	}
	names := make([]string, len(c.modules))
	for i, m := range c.modules {
		names[i] = m.name
	}
	panic(&Error{Op: fmt.Sprintf("find kernel %q in modules %v", name, names), Code: cu.ERROR_NOT_FOUND})
}

// Synchronize waits until the context's work is done; inside Do.
func (c *Context) Synchronize() { cu.CtxSynchronize() }
