package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.store.RuntimeDatabase;
import dev.periscope.browser.store.SqliteRecordings;
import dev.periscope.browser.store.SqliteTransitionLog;
import dev.periscope.browser.tools.MemoryAttachments;
import dev.periscope.browser.tools.ToolsForTests;
import dev.periscope.storage.SqliteStorageDomains;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording of each session on real Chromium and real SQLite ({@code recording}): after each
 * action a half-size JPEG of the viewport in the attachment store, the transition, the
 * observation's text and the page's complaints, redacted; {@code on-failure} drops a session's
 * recording when its browser closes with no failed action; the budget drops the oldest frames and
 * counts them; deleting the checkpoint deletes the recording; {@code off} takes nothing.
 */
class RecordingTest {
  @TempDir Path dir;
  private RuntimeDatabase database;
  private SqliteRecordings recordings;
  private final MemoryAttachments attachments = new MemoryAttachments();

  @AfterEach
  void close() {
    if (database != null) {
      database.close();
    }
  }

  private LocalBrowser browser(String mode, int budgetBytes) throws Exception {
    database = new RuntimeDatabase(new SqliteStorageDomains(dir));
    recordings = new SqliteRecordings(database, Optional.of(attachments));
    PluginConfiguration config =
        LocalBrowser.withLoopback(
            Map.of("recording", Map.of("mode", mode, "budgetBytes", budgetBytes)));
    BrowserSettings settings = BrowserSettings.from(config);
    return new LocalBrowser(
        Map.of(
            "/noisy",
            ConsoleEventsTest.NOISY,
            "/quiet",
            "<html><head><title>Quiet</title></head><body><h1>All quiet</h1></body></html>",
            "/late",
            "<html><head><title>Late</title></head><body>ok<script>setTimeout(() =>"
                + " console.error('a late complaint'), 1500)</script></body></html>",
            "/colours",
            "<html><head><title>Colours</title></head><body style='margin:0'><button"
                + " onclick=\"const c=['red','lime','blue','white'];"
                + "const b=document.getElementById('b');"
                + "b.style.background=c[(c.indexOf(b.style.background)+1)%4]\">Next"
                + " colour</button><div id=b style='background:white;height:90vh'></div>"
                + "</body></html>",
            "/red",
            "<html><head><title>Red</title></head><body style='background:red'>Red</body></html>",
            "/shop",
            "<html><head><title>Shop</title></head><body><button"
                + " onclick=\"window.open('/payment')\">Pay</button></body></html>",
            "/payment",
            "<html><head><title>Payment</title></head><body><button onclick=\"for (let i = 1;"
                + " i <= 7; i++) console.error('declined ' + i); window.close()\">Decline"
                + "</button></body></html>",
            "/login",
            "<html><head><title>Login</title></head><body><h1>Sign in</h1><input type=password"
                + " aria-label=Password style='position:fixed;left:20px;top:140px;width:400px;"
                + "height:32px;font-size:24px'></body></html>"),
        Map.of(
            "/missing.png", ConsoleEventsTest::notFound, "/api/cart", ConsoleEventsTest::notFound),
        new CredentialChannel(
            Optional.empty(), Map.of(), name -> null, true, Optional.empty(), true),
        config,
        Optional.of(attachments),
        dev.periscope.browser.runtime.PageScripting.off(),
        b ->
            b.transitionLog(new SqliteTransitionLog(database))
                .recording(settings.recording(), recordings));
  }

  /** The browser session of the newest transition: the agent's. */
  private static BrowserSessionId session(LocalBrowser browser) {
    var recent = browser.runtime().transitions();
    return new BrowserSessionId(recent.get(recent.size() - 1).sessionId());
  }

  /** The live view of the browser of the session that acted last, as a watch reaches it. */
  private static dev.periscope.api.browser.spi.LiveViewEnvironment watched(LocalBrowser browser) {
    return (dev.periscope.api.browser.spi.LiveViewEnvironment)
        browser.runtime().watchable().running(session(browser).value()).orElseThrow().environment();
  }

  private SqliteRecordings.Recording recording(LocalBrowser browser, BrowserSessionId id) {
    browser.runtime().flushRecordings();
    return recordings.recording(id).orElseThrow(() -> new AssertionError("no recording of " + id));
  }

  @Test
  void eachActionLeavesAHalfSizeFrameWithItsTextAndThePagesComplaintsRedacted() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      ToolResult page = browser.open("rec", "/noisy", "document");
      Thread.sleep(300);
      page = browser.call("rec", "browser_observe", Map.of());
      Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
      args.put("value", ConsoleEventsTest.PASSWORD);
      ToolResult filled = browser.call("rec", "browser_fill", args);
      assertFalse(filled.isError(), filled.text());
      ToolResult leaked = browser.call("rec", "browser_click", LocalBrowser.target(filled, "Leak"));
      assertFalse(leaked.isError(), leaked.text());
      BrowserSessionId id = session(browser);

      SqliteRecordings.Recording r = recording(browser, id);
      List<String> kinds = r.frames().stream().map(f -> f.action()).toList();
      String seen =
          String.join("\n", r.frames().stream().flatMap(f -> f.pageEvents().stream()).toList());
      // The page logged errors, threw, failed a fetch and loaded a missing image: as the
      // observations told them, counted, the first five listed.
      for (String complaint :
          List.of(
              "console error: cart failed to load",
              "uncaught error: TypeError: x is undefined",
              "failed request",
              "request failed: GET " + browser.url("/missing.png") + " (404)")) {
        assertTrue(seen.contains(complaint), complaint + " in\n" + seen);
      }
      r =
          new SqliteRecordings.Recording(
              r.sessionId(),
              r.frames().stream().filter(f -> !f.action().contains("observe")).toList(),
              r.failures(),
              r.droppedFrames(),
              r.droppedBytes());
      assertEquals(3, r.frames().size(), "open, fill, click: " + kinds);
      assertEquals(0, r.droppedFrames());
      for (SqliteRecordings.KeptFrame f : r.frames()) {
        assertNotNull(f.imageRef(), "every frame has its image: " + f.action());
        byte[] jpeg = attachments.open(f.imageRef()).orElseThrow().content();
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(jpeg));
        assertEquals(640, image.getWidth(), "half the viewport's 1280 CSS pixels");
        assertEquals(360, image.getHeight());
        assertEquals("succeeded", f.outcome());
        assertTrue(f.url().endsWith("/noisy"), f.url());
      }
      SqliteRecordings.KeptFrame opened = r.frames().get(0);
      assertTrue(opened.action().contains("\"kind\":\"navigate\""), opened.action());
      assertTrue(opened.observation().contains("Noisy"), opened.observation());
      String events = String.join("\n", opened.pageEvents());
      assertTrue(events.contains("console error: cart failed to load"), events);
      String all =
          String.join("\n", r.frames().stream().flatMap(f -> f.pageEvents().stream()).toList());
      assertTrue(all.contains("the password is [REDACTED:typed-password]"), all);
      String kept = r.frames().toString();
      assertFalse(kept.contains(ConsoleEventsTest.PASSWORD), "no secret in the recording: " + kept);
    }
  }

  /** The colour of a frame's pixel, as the page's one of red, lime, blue or white. */
  private static String colourAt(byte[] jpeg, int x, int y) throws Exception {
    java.awt.Color c =
        new java.awt.Color(ImageIO.read(new ByteArrayInputStream(jpeg)).getRGB(x, y));
    int r = c.getRed();
    int g = c.getGreen();
    int b = c.getBlue();
    return r > 200 && g < 80 && b < 80
        ? "red"
        : r < 80 && g > 200 && b < 80
            ? "lime"
            : r < 80 && g < 80 && b > 200
                ? "blue"
                : r > 200 && g > 200 && b > 200 ? "white" : c.toString();
  }

  @Test
  void clicksBackToBackEachLeaveTheFrameOfWhatTheyPainted() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      ToolResult page = browser.open("colours", "/colours", "summary");
      List<String> expected = new java.util.ArrayList<>(List.of("white"));
      for (String colour : List.of("red", "lime", "blue", "white", "red", "lime")) {
        page = browser.call("colours", "browser_click", LocalBrowser.target(page, "Next colour"));
        assertFalse(page.isError(), page.text());
        expected.add(colour);
      }
      SqliteRecordings.Recording r = recording(browser, session(browser));
      List<String> seen = new java.util.ArrayList<>();
      for (SqliteRecordings.KeptFrame f : r.frames()) {
        assertNotNull(f.imageRef(), "every frame has its image: " + f.action());
        seen.add(colourAt(attachments.open(f.imageRef()).orElseThrow().content(), 320, 250));
      }
      assertEquals(expected, seen, "each frame shows the page as its action left it");
    }
  }

  @Test
  void complaintsTheModelWasToldOnlyTheFirstFiveOfAreKeptInFull() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      browser.open("many", "/noisy", "summary");
      Thread.sleep(300);
      ToolResult page = browser.call("many", "browser_observe", Map.of());
      ToolResult complained =
          browser.call("many", "browser_click", LocalBrowser.target(page, "Complain"));
      String told = String.join("\n", ConsoleEventsTest.events(complained));
      assertTrue(told.contains("7 errors (the first 5 listed)"), told);
      assertFalse(told.contains("complaint 6"), told);
      SqliteRecordings.Recording r = recording(browser, session(browser));
      SqliteRecordings.KeptFrame click = r.frames().get(r.frames().size() - 1);
      assertTrue(click.action().contains("\"kind\":\"click\""), click.action());
      assertKeptInFull(click.pageEvents(), "console error: complaint ", 7);
    }
  }

  /**
   * After what the model was told, {@code kept} lists each complaint {@code prefix + 1 .. n} once,
   * in full.
   */
  private static void assertKeptInFull(List<String> kept, String prefix, int n) {
    int full =
        kept.indexOf("every complaint the observations since the last frame counted, in full:");
    assertTrue(full > 0, "the complaints in full after what the model was told: " + kept);
    List<String> rest = kept.subList(full + 1, kept.size());
    for (int i = 1; i <= n; i++) {
      String line = prefix + i;
      assertEquals(
          1, rest.stream().filter(l -> l.startsWith(line)).count(), line + " once in " + rest);
    }
  }

  @Test
  void whatATabThatClosedItselfComplainedOfIsKeptInFullWithItsNumber() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      ToolResult shop = browser.open("popup", "/shop", "summary");
      browser.call("popup", "browser_click", LocalBrowser.target(shop, "Pay"));
      ToolResult payment =
          browser.call("popup", "browser_tabs", Map.of("action", "select", "tab", 2));
      ToolResult declined =
          browser.call("popup", "browser_click", LocalBrowser.target(payment, "Decline"));
      assertTrue(declined.text().contains("tab 2 closed itself"), declined.text());
      String told = String.join("\n", ConsoleEventsTest.events(declined));
      assertTrue(told.contains("tab 2: the page reported 7 errors (the first 5 listed)"), told);
      assertFalse(told.contains("declined 6"), told);
      SqliteRecordings.Recording r = recording(browser, session(browser));
      assertKeptInFull(
          r.frames().get(r.frames().size() - 1).pageEvents(), "tab 2: console error: declined ", 7);
    }
  }

  /**
   * The login page's password field (CSS 20..420 x 140..172), inside its edges, is the mask's
   * colour (as JPEG keeps it) in {@code frame}, at whatever scale of the 1280-pixel viewport.
   */
  private static void assertMasked(BufferedImage frame) {
    assertFieldsBox(frame, CredentialFields.mask(), "the mask");
  }

  /**
   * Where the login page's password field is, {@code frame} is {@code colour} ({@link
   * #assertMasked}).
   */
  private static void assertFieldsBox(BufferedImage frame, java.awt.Color mask, String what) {
    double ratio = frame.getWidth() / 1280.0;
    for (int x = 28; x < 412; x += 12) {
      for (int y = 146; y < 168; y += 5) {
        java.awt.Color seen =
            new java.awt.Color(frame.getRGB((int) (x * ratio), (int) (y * ratio)));
        int off =
            Math.abs(seen.getRed() - mask.getRed())
                + Math.abs(seen.getGreen() - mask.getGreen())
                + Math.abs(seen.getBlue() - mask.getBlue());
        assertTrue(off < 40, "CSS pixel " + x + "," + y + " is " + seen + ", not " + what);
      }
    }
  }

  @Test
  void aFieldThatReceivedASecretIsMaskedInItsFrames() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      ToolResult page = browser.open("mask", "/login", "summary");
      Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
      args.put("value", ConsoleEventsTest.PASSWORD);
      assertFalse(browser.call("mask", "browser_fill", args).isError());
      SqliteRecordings.Recording r = recording(browser, session(browser));
      SqliteRecordings.KeptFrame filled = r.frames().get(r.frames().size() - 1);
      assertTrue(filled.action().contains("\"kind\":\"fill\""), filled.action());
      BufferedImage frame =
          ImageIO.read(
              new ByteArrayInputStream(
                  attachments.open(filled.imageRef()).orElseThrow().content()));
      assertMasked(frame);
    }
  }

  @Test
  void aFieldThatReceivedASecretMasksOnlyTheTabItIsIn() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      ToolResult page = browser.open("tabs", "/login", "summary");
      Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
      args.put("value", ConsoleEventsTest.PASSWORD);
      assertFalse(browser.call("tabs", "browser_fill", args).isError());
      ToolResult red =
          browser.call(
              "tabs", "browser_tabs", Map.of("action", "open", "url", browser.url("/red")));
      assertFalse(red.isError(), red.text());
      SqliteRecordings.Recording r = recording(browser, session(browser));
      SqliteRecordings.KeptFrame opened = r.frames().get(r.frames().size() - 1);
      assertTrue(opened.action().contains("\"kind\":\"tab_open\""), opened.action());
      assertFieldsBox(
          ImageIO.read(
              new ByteArrayInputStream(
                  attachments.open(opened.imageRef()).orElseThrow().content())),
          java.awt.Color.RED,
          "the red page of tab 2");
      ToolResult back = browser.call("tabs", "browser_tabs", Map.of("action", "select", "tab", 1));
      assertFalse(back.isError(), back.text());
      r = recording(browser, session(browser));
      assertMasked(
          ImageIO.read(
              new ByteArrayInputStream(
                  attachments
                      .open(r.frames().get(r.frames().size() - 1).imageRef())
                      .orElseThrow()
                      .content())));
    }
  }

  @Test
  void aWatchersFramesHaveAFieldThatReceivedASecretPaintedOver() throws Exception {
    try (LocalBrowser browser = browser("off", 16 * 1024 * 1024)) {
      ToolResult page = browser.open("watched", "/login", "summary");
      Map<String, Object> args = new HashMap<>(LocalBrowser.target(page, "Password"));
      args.put("value", ConsoleEventsTest.PASSWORD);
      assertFalse(browser.call("watched", "browser_fill", args).isError());
      var live = watched(browser);
      var frames =
          new java.util.concurrent.LinkedBlockingQueue<
              dev.periscope.api.browser.spi.LiveViewEnvironment.Frame>();
      try (AutoCloseable cast = live.watch(640, 360, frames::add)) {
        // Frames come as the lane pumps the driver's events: an observation makes it pump.
        browser.call("watched", "browser_observe", Map.of());
        var f = frames.poll(20, java.util.concurrent.TimeUnit.SECONDS);
        assertNotNull(f, "no frame reached the watcher");
        BufferedImage frame = ImageIO.read(new ByteArrayInputStream(f.jpeg()));
        assertMasked(frame);
      }
    }
  }

  @Test
  void aWatchFollowsTheAgentToTheTabItOpened() throws Exception {
    try (LocalBrowser browser = browser("off", 16 * 1024 * 1024)) {
      browser.open("follow", "/quiet", "summary");
      var live = watched(browser);
      var colours = new java.util.concurrent.LinkedBlockingQueue<String>();
      try (AutoCloseable cast =
          live.watch(
              640,
              360,
              f -> {
                try {
                  colours.add(colourAt(f.jpeg(), 320, 250));
                } catch (Exception e) {
                  colours.add(e.toString());
                }
              })) {
        browser.call("follow", "browser_observe", Map.of());
        assertEquals("white", colours.poll(20, java.util.concurrent.TimeUnit.SECONDS));
        ToolResult opened =
            browser.call(
                "follow", "browser_tabs", Map.of("action", "open", "url", browser.url("/red")));
        assertFalse(opened.isError(), opened.text());
        long deadline = System.nanoTime() + 20_000_000_000L;
        String seen = null;
        while (!"red".equals(seen) && System.nanoTime() < deadline) {
          browser.call("follow", "browser_observe", Map.of());
          seen = colours.poll(500, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        assertEquals("red", seen, "the watcher was shown the tab the agent opened");
      }
    }
  }

  @Test
  void thePageEventsOfAnObservationTheModelAskedForAreKeptWithoutAnImage() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      browser.open("late", "/late", "summary");
      Thread.sleep(2000);
      ToolResult observed = browser.call("late", "browser_observe", Map.of());
      assertTrue(
          ConsoleEventsTest.events(observed).toString().contains("a late complaint"),
          observed.text());
      SqliteRecordings.Recording r = recording(browser, session(browser));
      assertEquals(2, r.frames().size(), r.frames().toString());
      SqliteRecordings.KeptFrame row = r.frames().get(1);
      assertEquals("{\"kind\":\"observe\"}", row.action());
      assertEquals(null, row.imageRef());
      assertTrue(row.pageEvents().toString().contains("console error: a late complaint"));
    }
  }

  @Test
  void offTakesNoFrameAndWritesNothing() throws Exception {
    try (LocalBrowser browser = browser("off", 16 * 1024 * 1024)) {
      browser.open("off", "/quiet", "summary");
      browser.call("off", "browser_observe", Map.of());
      browser.runtime().flushRecordings();
      assertTrue(recordings.recording(session(browser)).isEmpty());
      assertEquals(0, attachments.size());
    }
  }

  @Test
  void onFailureKeepsOnlyTheRecordingOfASessionWhoseActionFailed() throws Exception {
    try (LocalBrowser browser = browser("on-failure", 16 * 1024 * 1024)) {
      browser.open("fine", "/quiet", "summary");
      BrowserSessionId fine = session(browser);
      assertEquals(1, recording(browser, fine).frames().size(), "recorded while it runs");

      browser.open("failing", "/quiet", "summary");
      ToolResult refused =
          browser.call("failing", "browser_open", Map.of("url", "http://127.0.0.3:8080/"));
      assertTrue(refused.isError(), refused.text());
      BrowserSessionId failing = session(browser);

      ToolsForTests.endSession("fine");
      ToolsForTests.endSession("failing");
      browser.runtime().flushRecordings();
      assertTrue(recordings.recording(fine).isEmpty(), "nothing failed: dropped");
      SqliteRecordings.Recording kept = recording(browser, failing);
      assertEquals(
          List.of("succeeded", "failed"), kept.frames().stream().map(f -> f.outcome()).toList());
      assertEquals("BROWSER_POLICY_DENIED", kept.frames().get(1).errorCode());
      assertEquals(1, kept.failures().size(), kept.failures().toString());
      SqliteRecordings.Failure line = kept.failures().get(0);
      assertEquals(kept.frames().get(1).transitionId(), line.transitionId());
      assertTrue(line.text().contains("code=BROWSER_POLICY_DENIED"), line.text());
      assertEquals(2, attachments.size(), "the dropped recording's images went with it: " + kept);
    }
  }

  @Test
  void overItsBudgetARecordingDropsItsOldestFramesAndSaysHowMany() throws Exception {
    try (LocalBrowser browser = browser("always", 64 * 1024)) {
      browser.open("budget", "/noisy", "document");
      for (int i = 0; i < 24; i++) {
        browser.call("budget", "browser_reload", Map.of());
      }
      BrowserSessionId id = session(browser);
      SqliteRecordings.Recording r = recording(browser, id);
      System.out.println(
          "a recording of 25 frames in 64 KiB: "
              + r.frames().size()
              + " kept, "
              + r.bytes()
              + " bytes; "
              + r.droppedFrames()
              + " dropped, "
              + r.droppedBytes()
              + " bytes");
      assertTrue(r.droppedFrames() > 0, "dropped: " + r.droppedFrames());
      assertEquals(25, r.frames().size() + r.droppedFrames(), "every frame kept or counted");
      assertTrue(r.bytes() <= 64 * 1024, "within the budget: " + r.bytes());
      assertEquals(r.frames().size(), attachments.size(), "the dropped frames' images are deleted");
      assertTrue(r.frames().get(r.frames().size() - 1).action().contains("reload"));
    }
  }

  @Test
  void deletingTheCheckpointDeletesTheRecording() throws Exception {
    try (LocalBrowser browser = browser("always", 16 * 1024 * 1024)) {
      browser.open("gone", "/quiet", "summary");
      BrowserSessionId id = session(browser);
      assertEquals(1, recording(browser, id).frames().size());
      ToolsForTests.endSession("gone");
      browser.runtime().discard(id);
      assertTrue(recordings.recording(id).isEmpty());
      assertEquals(0, attachments.size());
    }
  }
}
