package dev.periscope.harness.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.HarnessProcess;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code harness mcp --http 127.0.0.1:0} run as a real subprocess, with its standard error
 * recorded, every process it starts seen while it runs, and clients of the SDK's own Streamable
 * HTTP transport that show its token.
 */
final class McpHttpProcess implements AutoCloseable {
  static final McpJsonMapper JSON = new JacksonMcpJsonMapper(new ObjectMapper());
  private static final Pattern SERVING =
      Pattern.compile("at (http://\\S+/mcp) .* the token is in (\\S+)$");

  final Process process;
  final URI endpoint;
  final String token;
  final List<String> stderr = new CopyOnWriteArrayList<>();
  final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();
  private final Thread watcher;
  private final Thread reader;
  private final Path errFile;

  /** Starts the server; {@code args} follow {@code harness mcp --http 127.0.0.1:0}. */
  McpHttpProcess(Path home, Path tmp, Path project, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    List<String> command = HarnessProcess.java(tmp, true);
    command.addAll(
        List.of("mcp", "--http", "127.0.0.1:0", "--profile", "p", "--project", project.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("HARNESS_HOME", home.toString());
    pb.environment().put("TMPDIR", tmp.toString());
    pb.environment().put("HARNESS_TTY", "none");
    pb.environment().putAll(environment);
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    // A file, not a pipe: what the server writes is there to read however its children hold the
    // descriptor.
    errFile = Files.createTempFile(tmp, "server-err-", ".txt");
    pb.redirectError(errFile.toFile());
    process = pb.start();
    CompletableFuture<Matcher> serving = new CompletableFuture<>();
    reader =
        new Thread(
            () -> {
              try (BufferedReader r = Files.newBufferedReader(errFile, StandardCharsets.UTF_8)) {
                StringBuilder partial = new StringBuilder();
                boolean exited = false;
                while (true) {
                  int c = r.read();
                  if (c < 0) {
                    if (exited) {
                      break;
                    }
                    exited = !process.isAlive(); // one more pass after the exit, then done
                    Thread.sleep(20);
                    continue;
                  }
                  if (c != '\n') {
                    partial.append((char) c);
                    continue;
                  }
                  String line = partial.toString();
                  partial.setLength(0);
                  stderr.add(line);
                  Matcher m = SERVING.matcher(line);
                  if (m.find()) {
                    serving.complete(m);
                  }
                }
              } catch (IOException | InterruptedException e) {
                // then no more
              }
              serving.completeExceptionally(
                  new AssertionError("the server did not start: " + String.join("\n", stderr)));
            },
            "mcp-http-stderr");
    reader.setDaemon(true);
    reader.start();
    watcher = new Thread(this::watch, "mcp-http-descendants");
    watcher.setDaemon(true);
    watcher.start();
    Matcher m;
    try {
      m = serving.get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      process.destroyForcibly();
      throw new AssertionError(e.getCause() != null ? e.getCause() : e);
    }
    endpoint = URI.create(m.group(1));
    token = Files.readString(Path.of(m.group(2))).strip();
  }

  private void watch() {
    while (process.isAlive()) {
      process.descendants().forEach(descendants::add);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * A client of the SDK's Streamable HTTP transport, initialized; {@code name} names its agent
   * session (or null).
   */
  McpSyncClient client(String name) {
    return client(name, false);
  }

  /** A client that names its agent session in the URL ({@code /mcp?session=NAME}) instead. */
  McpSyncClient clientNamedInUrl(String name) {
    return client(name, true);
  }

  private McpSyncClient client(String name, boolean inUrl) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(
                endpoint.getScheme() + "://" + endpoint.getAuthority())
            .endpoint(endpoint.getPath() + (inUrl ? "?session=" + name : ""))
            .jsonMapper(JSON)
            .httpRequestCustomizer(
                (builder, method, uri, body, context) -> {
                  builder.header("Authorization", "Bearer " + token);
                  if (name != null && !inUrl) {
                    builder.header("Periscope-Session", name);
                  }
                })
            .build();
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(120))
            .initializationTimeout(Duration.ofSeconds(120))
            .build();
    client.initialize();
    clients.add(client);
    return client;
  }

  static McpSchema.CallToolResult call(
      McpSyncClient client, String tool, Map<String, Object> arguments) {
    return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
  }

  /** Every line of the server's standard error so far. */
  String err() {
    return String.join("\n", stderr);
  }

  /** Whether the server writes a line containing {@code text} to standard error within 10 s. */
  boolean said(String text) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!err().contains(text) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return err().contains(text);
  }

  /** SIGTERM, as a service manager stops it; its exit code once it has exited. */
  int terminate(Duration within) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the server did not exit within " + within + ":\n" + err());
    }
    watcher.join();
    reader.join(); // all it wrote
    return process.exitValue();
  }

  /** The processes the server started that are still running after {@code grace}. */
  List<ProcessHandle> survivors(Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
      Thread.sleep(50);
    }
    return new ArrayList<>(descendants.stream().filter(ProcessHandle::isAlive).toList());
  }

  @Override
  public void close() throws InterruptedException {
    for (McpSyncClient c : clients) {
      try {
        c.closeGracefully();
      } catch (RuntimeException e) {
        // the server may have gone first
      }
    }
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
