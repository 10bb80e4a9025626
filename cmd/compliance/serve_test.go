package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// A request in flight when the shutdown starts is finished, not cut.
func TestServeUntilFinishesInFlightRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(500 * time.Millisecond)
		io.WriteString(w, "finished")
	})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, srv, ln, 5*time.Second, slog.New(slog.DiscardHandler)) }()

	type result struct {
		body string
		err  error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		res <- result{string(b), err}
	}()
	<-started
	cancel() // shut down while the request sleeps

	r := <-res
	if r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request = %q, %v; want finished", r.body, r.err)
	}
	if err := <-done; err != nil {
		t.Fatalf("serveUntil = %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Errorf("listener still accepts after shutdown")
	}
}

// A request that outlasts the timeout makes serveUntil report it.
func TestServeUntilTimeout(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	started := make(chan struct{})
	release := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})}
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, srv, ln, 100*time.Millisecond, slog.New(slog.DiscardHandler)) }()
	go http.Get("http://" + ln.Addr().String() + "/")
	<-started
	cancel()
	if err := <-done; err == nil {
		t.Fatal("serveUntil = nil, want a shutdown timeout error")
	}
}
