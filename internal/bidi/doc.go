// Package bidi is a small WebDriver BiDi client for tests: it starts a
// headless Firefox (140 ESR and later speak BiDi on
// --remote-debugging-port; the Chrome DevTools Protocol chromedp needs is
// gone from them), opens a session, navigates its tab, evaluates
// JavaScript and takes screenshots. It knows only the handful of commands
// the console's browser tests use (session.new, browsingContext.getTree,
// browsingContext.navigate, script.evaluate,
// browsingContext.captureScreenshot); it is not a general driver.
//
// It is imported by tests only, never by the server.
package bidi
