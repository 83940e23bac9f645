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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ./bench speed recording}: what a session's recording costs a click and the observation
 * after it: a runtime with {@code recording.mode} off next to one with {@code always}, in one
 * process, each with its own browser, a real SQLite store and an attachment store in memory. Both
 * are warmed up first, then measured in alternating blocks (off, always, off, ...) so that the
 * machine's drift and the JIT's warming fall on both alike: back to back, and with {@link
 * #THINKING_MS} between calls as an agent leaves. Goal: always within 10% of off.
 */
final class RecordingBenchmark {
  private RecordingBenchmark() {}

  /** What an agent leaves between two calls at the least: it reads the result, then decides. */
  static final long THINKING_MS = 300;

  /** Untimed clicks on each runtime before any is timed. */
  private static final int WARM_UP = 40;

  /** Blocks per runtime, and clicks per block, back to back and paced. */
  private static final int BLOCKS = 6;

  private static final int BACK_TO_BACK = 10;
  private static final int PACED = 4;

  static void run(String base) throws Exception {
    try (Recorded off = new Recorded(base, "off");
        Recorded always = new Recorded(base, "always")) {
      for (int i = 0; i < WARM_UP; i++) {
        off.click();
        always.click();
      }
      List<Double> offFast = new ArrayList<>();
      List<Double> alwaysFast = new ArrayList<>();
      List<Double> offPaced = new ArrayList<>();
      List<Double> alwaysPaced = new ArrayList<>();
      for (int b = 0; b < BLOCKS; b++) {
        offFast.addAll(off.block(BACK_TO_BACK, 0));
        alwaysFast.addAll(always.block(BACK_TO_BACK, 0));
        offPaced.addAll(off.block(PACED, THINKING_MS));
        alwaysPaced.addAll(always.block(PACED, THINKING_MS));
      }
      System.out.printf(
          "  recording off: %d frame image(s) stored; always: %d, one per action%n",
          off.stored(), always.stored());
      SpeedBenchmark.report(
          "click + observation, recording always",
          median(alwaysFast),
          "recording off",
          median(offFast));
      SpeedBenchmark.report(
          "  the same, " + THINKING_MS + " ms between calls",
          median(alwaysPaced),
          "recording off",
          median(offPaced));
    }
  }

  private static double median(List<Double> times) {
    List<Double> sorted = new ArrayList<>(times);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** A runtime with {@code recording.mode} set so, its browser and its agent's page. */
  private static final class Recorded implements AutoCloseable {
    private final Path dir;
    private final RuntimeDatabase database;
    private final MemoryAttachments attachments = new MemoryAttachments();
    private final DefaultBrowserRuntime runtime;
    private final SpeedBenchmark.Periscope periscope;
    private ToolResult last;

    Recorded(String base, String mode) throws Exception {
      dir = Files.createTempDirectory("recording-bench-");
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
      database = new RuntimeDatabase(new SqliteStorageDomains(dir));
      runtime =
          DefaultBrowserRuntime.builder(s.runtime())
              .recording(s.recording(), new SqliteRecordings(database, Optional.of(attachments)))
              .build();
      runtime.registerProvider(provider);
      periscope = new SpeedBenchmark.Periscope(runtime, provider, ToolsForTests.tools(runtime, s));
      last = periscope.call("a", "browser_open", Map.of("url", base + "/counter"));
    }

    void click() {
      last = periscope.call("a", "browser_click", SpeedBenchmark.target(last, "Add"));
    }

    /** {@code n} timed clicks, each after {@code idleMs} of nothing (untimed). */
    List<Double> block(int n, long idleMs) throws InterruptedException {
      List<Double> times = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (idleMs > 0) {
          Thread.sleep(idleMs);
        }
        long start = System.nanoTime();
        click();
        times.add((System.nanoTime() - start) / 1e6);
      }
      return times;
    }

    int stored() {
      runtime.flushRecordings();
      return attachments.size();
    }

    @Override
    public void close() throws Exception {
      try {
        periscope.close();
      } finally {
        database.close();
        PlaywrightProvider.deleteTree(dir);
      }
    }
  }
}
