package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each page guard on real Chromium: the action that caused it fails BROWSER_POLICY_DENIED; the page
 * lives on.
 */
class GuardsTest {
  static LocalBrowser browser;
  static final CountDownLatch ticks = new CountDownLatch(100);
  static final java.util.concurrent.atomic.AtomicInteger popupTicks =
      new java.util.concurrent.atomic.AtomicInteger();
  static final CountDownLatch downloadStopped = new CountDownLatch(1);

  /** Whether the background page may start its popup and download: browser_open has returned. */
  static final java.util.concurrent.atomic.AtomicBoolean backgroundGo =
      new java.util.concurrent.atomic.AtomicBoolean();

  static final Map<String, String> PAGES =
      Map.of(
          "/pages",
          """
          <!doctype html><html><body>
          <button onclick="window.open('/other')">Pop up</button>
          <a href="/other" target="_blank">New tab</a>
          <button onclick="const a = document.createElement('a'); a.href = '/other'; a.target = '_blank';
            document.body.append(a); a.click();">Scripted tab</button>
          </body></html>""",
          "/downloads",
          """
          <!doctype html><html><body>
          <a href="/file.txt" download>Get file</a>
          <button onclick="const a = document.createElement('a');
            a.href = window.URL.createObjectURL(new Blob(['x'])); a.download = 'x.txt'; document.body.append(a); a.click();">Blob</button>
          <button onclick="location.href = '/attachment'">Attachment</button>
          </body></html>""",
          "/files",
          """
          <!doctype html><html><body>
          <input type="file" id="f" aria-label="Upload">
          <button onclick="document.getElementById('f').click()">Pick by script</button>
          <button onclick="document.getElementById('f').showPicker()">Show picker</button>
          <label id="l" for="f">Attach</label>
          <button onclick="document.getElementById('l').click()">Label by script</button>
          <button onclick="forge()">Forged upload</button>
          <script>
            // A page that found the environment's registry (a non-enumerable property of window, but
            // listed by getOwnPropertyNames) and claims an upload is running.
            function forge() {
              for (const k of Object.getOwnPropertyNames(window)) {
                if (k.startsWith('__periscope_')) window[k].uploading = true;
              }
              document.getElementById('f').click();
            }
          </script>
          </body></html>""",
          "/external",
          """
          <!doctype html><html><body>
          <a href="mailto:keeper@lighthouse.test">Mail the keeper</a>
          <button onclick="const a = document.createElement('a'); a.href = 'tel:+100'; document.body.append(a); a.click();">Call</button>
          <form action="mailto:keeper@lighthouse.test"><button>Send form</button></form>
          <button onclick="location.href = 'mailto:keeper@lighthouse.test'">Mail by script</button>
          <button onclick="window.location.assign('lighthouse-app://open')">Custom scheme by script</button>
          </body></html>""",
          "/permissions",
          """
          <!doctype html><html><body><button onclick="navigator.geolocation.getCurrentPosition(
            () => document.getElementById('out').textContent = 'located',
            e => document.getElementById('out').textContent = 'geo error ' + e.code)">Locate</button>
          <p id="out"></p></body></html>""",
          "/alive",
          """
          <!doctype html><html><head><title>0</title></head><body>
          <script>
            let n = 0;
            setTimeout(() => alert('Timer dialog'), 1000);
            const tick = () => fetch('/tick').then(() => { document.title = String(++n); setTimeout(tick, 20); });
            tick();
          </script></body></html>""",
          "/opener",
          "<!doctype html><html><body><p>Opener</p><script>window.open('/other');"
              + " const a = document.createElement('a'); a.href = '/other'; a.target = '_blank';"
              + " document.body.append(a); a.click();</script></body></html>",
          "/background",
          """
          <!doctype html><html><body><p>Quiet page</p>
          <script>
            // Both start once the test says browser_open has returned (a timer alone was too soon
            // on a busy machine: the popup then came during the open, which reports it as its own).
            // Hides clicks from the in-page guard, so only the context's page handler can stop the popup.
            window.addEventListener('click', e => e.stopPropagation(), true);
            const start = () => {
              const a = document.createElement('a'); a.href = '/popup'; a.target = '_blank';
              document.body.append(a); a.click();
              const f = document.createElement('iframe'); f.src = '/slow-download'; document.body.append(f);
            };
            const wait = () => fetch('/background-go').then(r => r.text())
              .then(t => t === 'go' ? setTimeout(start, 200) : setTimeout(wait, 100));
            wait();
          </script></body></html>""",
          "/popup",
          """
          <!doctype html><html><body><script>
            const tick = () => fetch('/popup-tick').then(() => setTimeout(tick, 50)); tick();
          </script></body></html>""");

  @BeforeAll
  static void start() throws Exception {
    browser =
        new LocalBrowser(
            PAGES,
            Map.of(
                "/tick",
                    exchange -> {
                      ticks.countDown();
                      LocalBrowser.respond(exchange, "tick");
                    },
                "/background-go",
                    exchange -> LocalBrowser.respond(exchange, backgroundGo.get() ? "go" : "wait"),
                "/popup-tick",
                    exchange -> {
                      popupTicks.incrementAndGet();
                      LocalBrowser.respond(exchange, "tick");
                    },
                "/slow-download",
                    exchange -> {
                      // A download that would take 30 s: it ends early only when the browser
                      // cancels it.
                      exchange
                          .getResponseHeaders()
                          .set("Content-Disposition", "attachment; filename=big.bin");
                      exchange.sendResponseHeaders(200, 0);
                      try (OutputStream out = exchange.getResponseBody()) {
                        for (int i = 0; i < 300; i++) {
                          out.write(new byte[1024]);
                          out.flush();
                          Thread.sleep(100);
                        }
                      } catch (java.io.IOException e) {
                        downloadStopped.countDown();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    },
                "/attachment",
                    exchange -> {
                      exchange
                          .getResponseHeaders()
                          .set("Content-Disposition", "attachment; filename=report.txt");
                      byte[] body = "report".getBytes(StandardCharsets.UTF_8);
                      exchange.sendResponseHeaders(200, body.length);
                      try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                      }
                    }),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            // This project keeps no downloads: each one is refused or cancelled.
            LocalBrowser.withLoopback(Map.of("downloads", Map.of("enabled", false))));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static String url(String path) {
    return browser.url(path);
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  static Map<String, Object> observation(ToolResult r) {
    return LocalBrowser.observation(r);
  }

  /** Opens the page and clicks the element with this name in its first observation. */
  @SuppressWarnings("unchecked")
  static ToolResult clickOn(String agent, String path, String name) {
    ToolResult page = call(agent, "browser_open", Map.of("url", url(path), "mode", "interactive"));
    for (Map<String, Object> e : (List<Map<String, Object>>) observation(page).get("elements")) {
      if (name.equals(e.get("name"))) {
        return call(
            agent,
            "browser_click",
            Map.of("observation_id", observation(page).get("id"), "element_ref", e.get("ref")));
      }
    }
    throw new AssertionError("no " + name + " in " + page.text());
  }

  /** Whether the counter stands still for a second within the given seconds. */
  /** Whether the counter stops changing (at any value, zero included) within the time given. */
  static boolean settles(java.util.concurrent.atomic.AtomicInteger counter, int seconds)
      throws Exception {
    for (int i = 0; i < seconds; i++) {
      int then = counter.get();
      Thread.sleep(1000);
      if (counter.get() == then) {
        return true;
      }
    }
    return false;
  }

  static void assertDenied(ToolResult r, String why) {
    assertTrue(r.isError(), r.text());
    assertTrue(r.text().contains(why), r.text());
    assertTrue(r.text().contains("code=BROWSER_POLICY_DENIED"), r.text());
  }

  @Test
  void aWindowThePageOpensWithoutTheAgentsInputIsRefused() {
    // The page's own script, as it loads: no click or key of the agent's gave it an activation.
    ToolResult opened = call("pages", "browser_open", Map.of("url", url("/opener")));
    assertDenied(opened, "the page tried to open a new window");
    ToolResult after = call("pages", "browser_observe", Map.of());
    assertEquals(url("/opener"), observation(after).get("url"));
    assertTrue(after.text().contains("Tab: 1 of 1"), after.text());
  }

  @Test
  void refusesDownloadsDeclaredScriptedOrServedAsAttachments() {
    assertDenied(clickOn("downloads", "/downloads", "Get file"), "it downloads a file");
    assertDenied(clickOn("downloads", "/downloads", "Blob"), "the link downloads a file");
    assertDenied(
        clickOn("downloads", "/downloads", "Attachment"),
        "started a download, which was cancelled");
  }

  @Test
  void refusesFileInputsAndScriptedFilePickers() {
    assertDenied(clickOn("files", "/files", "Upload"), "it is a file input");
    assertDenied(clickOn("files", "/files", "Pick by script"), "tried to open a file picker");
    assertDenied(clickOn("files", "/files", "Show picker"), "tried to open a file picker");
    assertDenied(clickOn("files", "/files", "Label by script"), "tried to open a file picker");
    // Past the in-page guard, the chooser itself is intercepted: none reaches the system. Its
    // report may come after the click returned, as the next observation's page event.
    ToolResult forged = clickOn("files", "/files", "Forged upload");
    String seen =
        forged.isError()
            ? forged.text()
            : call("files", "browser_observe", Map.of()).text() + "\n" + forged.text();
    assertTrue(seen.contains("the page tried to open a file picker"), seen);
  }

  @Test
  void refusesExternalProtocolsObservedOrScripted() {
    assertDenied(
        clickOn("external", "/external", "Mail the keeper"),
        "it hands a link or form to another program");
    assertDenied(clickOn("external", "/external", "Call"), "hands tel: to another program");
    assertDenied(
        clickOn("external", "/external", "Send form"),
        "it hands a link or form to another program");
    assertDenied(
        clickOn("external", "/external", "Mail by script"),
        "tried to hand mailto: to another program");
    assertDenied(
        clickOn("external", "/external", "Custom scheme by script"),
        "tried to hand lighthouse-app: to another program");
    ToolResult after = call("external", "browser_observe", Map.of());
    assertEquals(url("/external"), observation(after).get("url"));
  }

  @Test
  void deniesPermissionsWithoutAPrompt() {
    ToolResult r = clickOn("permissions", "/permissions", "Locate");
    assertFalse(r.isError(), r.text());
    ToolResult later = call("permissions", "browser_wait", Map.of("until", "load"));
    assertTrue(((String) observation(later).get("text")).contains("geo error 1"), later.text());
  }

  @Test
  void thePageKeepsLivingBetweenCallsAndATimerDialogDoesNotStopIt() throws Exception {
    call("alive", "browser_open", Map.of("url", url("/alive")));
    // No tool call runs now. The page's fetch loop must keep going past its timer's dialog.
    assertTrue(ticks.await(20, TimeUnit.SECONDS), "the page stopped while no call was in flight");
    ToolResult later = call("alive", "browser_observe", Map.of());
    assertTrue(Integer.parseInt((String) observation(later).get("title")) >= 10, later.text());
    assertTrue(later.text().contains("dismissed an alert dialog: \"Timer dialog\""), later.text());
  }

  @Test
  void popupsAndDownloadsStartedWhileNoActionRunsAreStoppedAtOnceAndReported() throws Exception {
    ToolResult opened = call("background", "browser_open", Map.of("url", url("/background")));
    assertFalse(opened.isError(), opened.text());
    backgroundGo.set(true);
    // No tool call runs now. The download must be cancelled, and the popup closed, without waiting
    // for one.
    assertTrue(downloadStopped.await(15, TimeUnit.SECONDS), "the background download kept running");
    // The popup may be closed before its first fetch gets through (then it never ticks); either way
    // it must not
    // keep ticking. That it was opened at all is the page event checked below.
    assertTrue(
        settles(popupTicks, 15),
        "the popup kept running while no call was in flight (ticks: " + popupTicks.get() + ")");
    ToolResult later = call("background", "browser_observe", Map.of());
    assertFalse(later.isError(), later.text());
    assertTrue(
        later.text().contains("the page opened another page, which was closed while no action ran"),
        "the open said:\n" + opened.text() + "\nthe observation after it:\n" + later.text());
    assertTrue(
        later
            .text()
            .contains("the page started a download, which was cancelled while no action ran"),
        later.text());
    assertEquals(url("/background"), observation(later).get("url"));
  }
}
