package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is one running `compliance serve`.
type server struct {
	name    string
	cmd     *exec.Cmd
	pid     int
	base    string // http://127.0.0.1:PORT
	logPath string
	started time.Time     // just before exec
	ready   time.Duration // from exec to the first 200 from /readyz
	exited  chan struct{}
	waitErr error
}

var (
	serversMu sync.Mutex
	servers   = map[*server]bool{}
)

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts `bin serve` with env added to the inherited
// environment, and waits until /readyz answers 200.
func startServer(ctx context.Context, name, bin, logDir string, env ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, fmt.Sprintf("server-%s-%d.log", name, port))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "BIND_ADDR=127.0.0.1")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// If benchtool dies without cleaning up, the kernel stops the server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s := &server{name: name, cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), logPath: logPath, exited: make(chan struct{})}
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.pid = cmd.Process.Pid
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	serversMu.Lock()
	servers[s] = true
	serversMu.Unlock()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls /readyz every 5 ms until it answers 200.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/readyz", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.ready = time.Since(s.started)
				return nil
			}
			last = resp.Status
		}
		select {
		case <-s.exited:
			return fmt.Errorf("server %s exited during start-up (%v); last lines of %s:\n%s", s.name, s.waitErr, s.logPath, tail(s.logPath, 20))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server %s not ready within %s (last: %s); log %s:\n%s", s.name, timeout, last, s.logPath, tail(s.logPath, 20))
		}
	}
}

// stop sends SIGTERM and waits for the exit, killing after 25 s.
func (s *server) stop() {
	serversMu.Lock()
	delete(servers, s)
	serversMu.Unlock()
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(25 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

func stopAllServers() {
	serversMu.Lock()
	var all []*server
	for s := range servers {
		all = append(all, s)
	}
	serversMu.Unlock()
	for _, s := range all {
		s.stop()
	}
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// vmRSS returns the resident set size of pid in bytes, from
// /proc/PID/status.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/status")
}

// clockTick is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture Go supports.
const clockTick = 100

// procCPU returns the user+system CPU time pid has used, from
// /proc/PID/stat, and its command name.
func procCPU(pid int) (time.Duration, string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	return parseStat(b)
}

func parseStat(b []byte) (time.Duration, string, error) {
	// pid (comm) state ppid ... utime(14) stime(15): comm may hold spaces.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return 0, "", errors.New("bad /proc stat")
	}
	comm := string(b[open+1 : end])
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return 0, "", errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, "", errors.New("bad /proc stat times")
	}
	return time.Duration(ut+st) * time.Second / clockTick, comm, nil
}

// commCPU returns the CPU time used so far by every process whose command
// name is comm (e.g. every postgres backend), by pid.
func commCPU(comm string) map[int]time.Duration {
	out := map[int]time.Duration{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		t, c, err := procCPU(pid)
		if err == nil && c == comm {
			out[pid] = t
		}
	}
	return out
}

// machineCPU returns the busy and total jiffies of the whole machine, from
// the first line of /proc/stat.
func machineCPU() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i >= 8 { // guest and guest_nice are already in user and nice
			break
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// selfCPU returns the user+system CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuSnap is a point-in-time reading of every CPU counter the load
// benchmark reports.
type cpuSnap struct {
	at        time.Time
	self      time.Duration
	server    time.Duration
	postgres  map[int]time.Duration
	busy, all int64
}

func snapCPU(serverPID int) cpuSnap {
	s := cpuSnap{at: time.Now(), self: selfCPU(), postgres: commCPU("postgres")}
	s.server, _, _ = procCPU(serverPID)
	s.busy, s.all = machineCPU()
	return s
}

// cpuShares are CPU time over wall time over the number of CPUs, in percent.
type cpuShares struct {
	loadgen, server, postgres, machine float64
}

// other is the share of the machine used by none of the three.
func (c cpuShares) other() float64 {
	return max(0, c.machine-c.loadgen-c.server-c.postgres)
}

func shares(a, b cpuSnap, ncpu int) cpuShares {
	wall := b.at.Sub(a.at).Seconds() * float64(ncpu)
	var pg time.Duration
	for pid, t := range b.postgres {
		pg += t - a.postgres[pid] // a backend born in between counts from zero
	}
	sh := cpuShares{
		loadgen:  (b.self - a.self).Seconds() / wall * 100,
		server:   (b.server - a.server).Seconds() / wall * 100,
		postgres: pg.Seconds() / wall * 100,
	}
	if b.all > a.all {
		sh.machine = float64(b.busy-a.busy) / float64(b.all-a.all) * 100
	}
	return sh
}
