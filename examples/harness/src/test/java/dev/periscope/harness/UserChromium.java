package dev.periscope.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.profile.PluginInstaller;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Chromium started as a person would start theirs for an agent to attach to: its own profile,
 * {@code --remote-debugging-port} on loopback, one tab of theirs open. What it is not told to reach
 * directly (loopback) goes to a proxy where nothing listens, so nothing leaves this machine.
 * Closing it kills the processes it started, and only those.
 */
public final class UserChromium implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(java.net.ProxySelector.of(null)).build();

  private final Process process;
  private final Path profile;

  /** Its DevTools discovery address, {@code http://127.0.0.1:PORT}. */
  public final URI devtools;

  public UserChromium(String firstTab) throws IOException, InterruptedException {
    profile = Files.createTempDirectory("user-chromium-");
    List<String> command =
        new ArrayList<>(
            List.of(
                "/usr/bin/chromium",
                "--headless",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                "--proxy-server=http://127.0.0.1:9"));
    if ("root".equals(System.getProperty("user.name"))) {
      command.add("--no-sandbox");
    }
    command.add(firstTab);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("chromium.log").toFile());
    // What it keeps in the temp directory goes with its profile, however it ends.
    builder.environment().put("TMPDIR", Files.createDirectory(profile.resolve("tmp")).toString());
    process = builder.start();
    Path portFile = profile.resolve("DevToolsActivePort");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(portFile) || Files.readAllLines(portFile).isEmpty()) {
      if (!process.isAlive() || System.nanoTime() > until) {
        close();
        throw new IllegalStateException("the user's Chromium opened no DevTools port");
      }
      Thread.sleep(50);
    }
    devtools = URI.create("http://127.0.0.1:" + Files.readAllLines(portFile).get(0).strip());
  }

  /** Whether it still runs. */
  public boolean running() {
    return process.isAlive();
  }

  /** Its process and every process it started. */
  public boolean owns(ProcessHandle p) {
    return p.pid() == process.pid()
        || process.toHandle().descendants().anyMatch(c -> c.pid() == p.pid());
  }

  /** The URLs of the pages it has open, from its own DevTools listing. */
  public List<String> tabs() throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(devtools.resolve("/json/list")).build(),
            HttpResponse.BodyHandlers.ofString());
    List<String> urls = new ArrayList<>();
    for (JsonNode target : new ObjectMapper().readTree(r.body())) {
      if ("page".equals(target.path("type").asText())) {
        urls.add(target.path("url").asText());
      }
    }
    return urls;
  }

  @Override
  public void close() {
    process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    PluginInstaller.deleteTree(profile);
  }
}
