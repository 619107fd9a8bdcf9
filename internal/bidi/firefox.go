package bidi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// Errors of Find and Start.
var (
	// ErrNoFirefox says no Firefox binary is on PATH.
	ErrNoFirefox = errors.New("bidi: no firefox-esr or firefox on PATH (Debian: apt-get install firefox-esr)")
	// ErrNoEndpoint says Firefox exited or never said where it listens.
	ErrNoEndpoint = errors.New("bidi: Firefox never printed its WebDriver BiDi address")
)

// Find returns the path of a Firefox binary on PATH.
func Find() (string, error) {
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoFirefox
}

// prefs keep a test's Firefox to itself: no first-run pages, no update,
// telemetry, safe-browsing or captive-portal requests to the internet.
const prefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("app.update.disabledForTesting", true);
user_pref("app.normandy.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.server", "");
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("services.settings.server", "http://127.0.0.1:9/");
user_pref("remote.prefs.recommended", true);
`

// listening is the line Firefox prints once its BiDi server is up.
var listening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// startFirefox starts path headless with a fresh profile in dir, its BiDi
// server on a port it picks, and returns the process and the address.
func startFirefox(ctx context.Context, path, dir string) (*exec.Cmd, string, error) {
	profile := filepath.Join(dir, "profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o600); err != nil {
		return nil, "", err
	}
	cmd := exec.Command(path, "--headless", "--no-remote", "--profile", profile,
		"--remote-debugging-port", "0", "--width", "1280", "--height", "1000", "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+dir, "MOZ_CRASHREPORTER_DISABLE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	found := make(chan string, 1)
	go scanFor(stderr, found)
	select {
	case addr, ok := <-found:
		if ok {
			return cmd, addr, nil
		}
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, "", ErrNoEndpoint
}

// scanFor reads Firefox's stderr to its end, sending the BiDi address
// when it appears (closing found if it never does).
func scanFor(r io.Reader, found chan<- string) {
	sent := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
			found <- m[1]
			sent = true
		}
	}
	if !sent {
		close(found)
	}
}

// describe names the browser for messages.
func describe(path string) string {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return path
	}
	return fmt.Sprintf("%s (%s)", path, string(out[:len(out)-1]))
}
