package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Cold start for {@link SpeedBenchmark}: a process of its own starts, from nothing, to the first
 * observation of a local page, once as a Periscope runtime and once as raw Playwright (create,
 * launch, new context, page, goto, AI snapshot). Timed from the spawn to the child's "observed"
 * line, alternating, medians of a few rounds.
 */
final class ColdStart {
  private static final int ROUNDS = 9;

  private ColdStart() {}

  static void run(String base) throws Exception {
    List<Double> ours = new ArrayList<>();
    List<Double> raw = new ArrayList<>();
    for (int i = 0; i < ROUNDS; i++) {
      ours.add(spawn("ours", base));
      settle();
      raw.add(spawn("raw", base));
      settle();
    }
    SpeedBenchmark.report(
        "cold start to first observation",
        median(ours),
        "Playwright create ... snapshot",
        median(raw));
  }

  /**
   * Waits for the machine to be quiet again: a child's browser processes end after the child
   * itself, and would slow the next start down.
   */
  private static void settle() throws InterruptedException {
    Thread.sleep(SETTLE_MS);
  }

  private static final long SETTLE_MS = Long.getLong("settle", 2000);

  private static double median(List<Double> times) {
    Collections.sort(times);
    return times.get(times.size() / 2);
  }

  private static double spawn(String which, String base) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(
                java,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp",
                System.getProperty("java.class.path"),
                SpeedBenchmark.class.getName(),
                "cold-child",
                which,
                base)
            .redirectErrorStream(true)
            .start();
    double ms = -1;
    StringBuilder output = new StringBuilder();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.equals("observed") && ms < 0) {
          ms = (System.nanoTime() - start) / 1e6;
        } else {
          output.append(line).append('\n');
        }
      }
    }
    p.waitFor();
    if (ms < 0) {
      throw new IllegalStateException(which + " never observed:\n" + output);
    }
    return ms;
  }

  static void child(String[] args) {
    String which = args[1];
    String url = args[2] + "/counter";
    if (which.equals("raw")) {
      try (Playwright playwright = RawPlaywright.create();
          Browser browser = RawPlaywright.launch(playwright)) {
        Page page = browser.newContext().newPage();
        page.navigate(url);
        SpeedBenchmark.snapshot(page);
        System.out.println("observed");
      }
    } else {
      try (SpeedBenchmark.Periscope r = SpeedBenchmark.Periscope.loopback()) {
        var result = r.call("a", "browser_open", Map.of("url", url));
        if (result.isError()) {
          throw new IllegalStateException(result.text());
        }
        System.out.println("observed");
      }
    }
    System.out.flush();
  }
}
