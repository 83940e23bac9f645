package dev.periscope.browser.playwright;

import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.store.RuntimeDatabase;
import dev.periscope.browser.store.SqliteRecordings;
import dev.periscope.browser.tools.MemoryAttachments;
import dev.periscope.browser.tools.ToolsForTests;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ./bench speed recording}: what a session's recording costs a click and the observation
 * after it: {@code recording.mode} off, always, and off again (the drift of the machine between
 * them), each in a runtime of its own, with a real SQLite store and an attachment store in memory;
 * back to back, and with {@link #THINKING_MS} between calls as an agent leaves (the frame is taken
 * in the turn after the call, so a call that follows at once waits for it). Goal: always within 10%
 * of off.
 */
final class RecordingBenchmark {
  private RecordingBenchmark() {}

  /** What an agent leaves between two calls at the least: it reads the result, then decides. */
  static final long THINKING_MS = 300;

  static void run(String base) throws Exception {
    double[] off = clicks(base, "off");
    double[] always = clicks(base, "always");
    double[] offAgain = clicks(base, "off");
    double[] anchor = {(off[0] + offAgain[0]) / 2, (off[1] + offAgain[1]) / 2};
    SpeedBenchmark.report(
        "click + observation, recording always", always[0], "recording off", anchor[0]);
    SpeedBenchmark.report(
        "  the same, " + THINKING_MS + " ms between calls", always[1], "recording off", anchor[1]);
    SpeedBenchmark.report(
        "click + observation, recording off again", offAgain[0], "recording off", off[0]);
    SpeedBenchmark.report(
        "  the same, " + THINKING_MS + " ms between calls", offAgain[1], "recording off", off[1]);
  }

  /**
   * The median click + observation with {@code recording.mode} set so: back to back, and with an
   * agent's pause between calls.
   */
  private static double[] clicks(String base, String mode) throws Exception {
    Path dir = Files.createTempDirectory("recording-bench-");
    BrowserSettings s =
        BrowserSettings.from(
            new PluginConfiguration(
                Map.of(
                    "persistence",
                    "ephemeral",
                    "network",
                    Map.of("mode", "allowlist", "allowCidrs", List.of("127.0.0.1/32")),
                    "recording",
                    Map.of("mode", mode))));
    PlaywrightProvider provider =
        new PlaywrightProvider(
            s.playwright(), Optional.empty(), Resolver.system(), Upstream.direct());
    provider.prelaunch();
    MemoryAttachments attachments = new MemoryAttachments();
    try (RuntimeDatabase database = new RuntimeDatabase(new SqliteStorageDomains(dir))) {
      DefaultBrowserRuntime runtime =
          DefaultBrowserRuntime.builder(s.runtime())
              .recording(s.recording(), new SqliteRecordings(database, Optional.of(attachments)))
              .build();
      runtime.registerProvider(provider);
      var tools = ToolsForTests.tools(runtime, s);
      try (SpeedBenchmark.Periscope r = new SpeedBenchmark.Periscope(runtime, provider, tools)) {
        ToolResult opened = r.call("a", "browser_open", Map.of("url", base + "/counter"));
        Object[] last = {opened};
        Runnable click =
            () ->
                last[0] =
                    r.call(
                        "a", "browser_click", SpeedBenchmark.target((ToolResult) last[0], "Add"));
        double backToBack = SpeedBenchmark.median(click);
        double thinking = SpeedBenchmark.median(click, THINKING_MS);
        runtime.flushRecordings();
        System.out.printf(
            "  recording %-7s click + observation median %6.1f ms back to back, %6.1f ms with %d ms"
                + " between calls; %d frame image(s) stored%n",
            mode, backToBack, thinking, THINKING_MS, attachments.size());
        return new double[] {backToBack, thinking};
      }
    } finally {
      PlaywrightProvider.deleteTree(dir);
    }
  }
}
