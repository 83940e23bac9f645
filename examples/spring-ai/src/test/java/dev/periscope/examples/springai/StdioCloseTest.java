package dev.periscope.examples.springai;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same chat client over standard input and output: {@code harness mcp} started as a command by
 * the SDK's {@link StdioClientTransport}, as an {@code mcpServers} entry starts it, and what
 * closing the client shows: how the server exits, what is logged, and that no process it started is
 * left.
 */
class StdioCloseTest {
  @TempDir Path dir;

  @Test
  void aChatClientOverStdioPressesTheButtonAndClosingLeavesNoProcess() throws Exception {
    Harness harness = Harness.install(dir);
    List<String> command =
        harness.command("mcp", "--profile", "p", "--project", harness.project.toString());
    StdioClientTransport transport =
        new StdioClientTransport(
            ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size()))
                .env(harness.environment())
                .build(),
            McpJsonDefaults.getMapper());
    List<String> serverErr = new CopyOnWriteArrayList<>();
    transport.setStdErrorHandler(serverErr::add);
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(120))
            .initializationTimeout(Duration.ofSeconds(120))
            .build();
    Process server = null;
    Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
    PrintStream err = System.err;
    try (ShopPage page = new ShopPage()) {
      client.initialize();
      server = process(transport);
      Process watched = server;
      Thread watcher =
          new Thread(
              () -> {
                while (watched.isAlive()) {
                  watched.descendants().forEach(descendants::add);
                  try {
                    Thread.sleep(20);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "stdio-descendants");
      watcher.setDaemon(true);
      watcher.start();

      String answer =
          BrowserAgent.chatClient(new ScriptedChatModel(page.url(), "Add to cart"), client)
              .prompt()
              .user("Put the backpack into the cart at " + page.url())
              .call()
              .content();
      assertTrue(answer.contains(ShopPage.AFTER), answer);
      assertTrue(
          descendants.stream().anyMatch(h -> h.info().command().orElse("").contains("chrom")),
          "a browser ran: " + descendants.size() + " processes");

      // Close as a client does, keeping what is logged meanwhile (slf4j-simple writes to
      // System.err).
      ByteArrayOutputStream logged = new ByteArrayOutputStream();
      System.setErr(new PrintStream(tee(err, logged), true, StandardCharsets.UTF_8));
      long start = System.nanoTime();
      boolean closed;
      try {
        closed = client.closeGracefully();
        server.waitFor(60, TimeUnit.SECONDS);
      } finally {
        System.setErr(err);
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      watcher.join();
      assertTrue(closed, "closeGracefully returned false");
      assertTrue(!server.isAlive(), "the server still runs 60 s after the client closed");
      List<String> warnings =
          logged
              .toString(StandardCharsets.UTF_8)
              .lines()
              .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
              .toList();
      System.out.println(
          "stdio: closeGracefully() returned "
              + closed
              + " after "
              + millis
              + " ms; harness mcp exited "
              + server.exitValue()
              + "; warnings and errors logged while closing: "
              + (warnings.isEmpty() ? "none" : String.join("\n  ", warnings))
              + "\nlogged while closing:\n"
              + logged.toString(StandardCharsets.UTF_8));
      // A clean stop: older SDK clients (Spring AI 1.1.x's) warn on any other status.
      org.junit.jupiter.api.Assertions.assertEquals(0, server.exitValue(), "harness mcp's status");
      org.junit.jupiter.api.Assertions.assertEquals(List.of(), warnings, "warnings while closing");

      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (System.nanoTime() < deadline
          && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
        Thread.sleep(50);
      }
      List<ProcessHandle> survivors = descendants.stream().filter(ProcessHandle::isAlive).toList();
      survivors.forEach(ProcessHandle::destroyForcibly);
      assertTrue(
          survivors.isEmpty(),
          "still running after the server exited: "
              + survivors.stream()
                  .map(h -> h.pid() + " " + h.info().commandLine().orElse("?"))
                  .toList());
    } finally {
      System.setErr(err);
      if (server != null && server.isAlive()) {
        server.destroyForcibly();
      }
      descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }

  /** The server process the transport started (it keeps it to itself). */
  private static Process process(StdioClientTransport transport)
      throws ReflectiveOperationException {
    Field field = StdioClientTransport.class.getDeclaredField("process");
    field.setAccessible(true);
    return (Process) field.get(transport);
  }

  private static OutputStream tee(OutputStream a, OutputStream b) {
    return new OutputStream() {
      @Override
      public void write(int c) throws java.io.IOException {
        a.write(c);
        b.write(c);
      }

      @Override
      public void write(byte[] bytes, int off, int len) throws java.io.IOException {
        a.write(bytes, off, len);
        b.write(bytes, off, len);
      }

      @Override
      public void flush() throws java.io.IOException {
        a.flush();
        b.flush();
      }
    };
  }
}
