package dev.periscope.harness.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.HarnessProcess;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * An MCP connection to {@code harness mcp} run as a subprocess, made by the SDK's own client over
 * its stdio transport. It records every message both ways (as JSON), the server's standard error,
 * and every process the server started while it ran.
 */
public final class McpConnection implements AutoCloseable {
  static final McpJsonMapper JSON = new JacksonMcpJsonMapper(new ObjectMapper());

  final McpSyncClient client;
  final List<String> messages = new CopyOnWriteArrayList<>();
  public final List<String> stderr = new CopyOnWriteArrayList<>();
  final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();

  /** The executables of those processes, seen while they ran. */
  final Set<String> commands = ConcurrentHashMap.newKeySet();

  private final ProcessHandle server;
  private final Thread watcher;
  private volatile boolean closed;

  /** Connects and initializes; {@code args} follow {@code harness mcp}. */
  public McpConnection(
      Path home, Path tmp, Map<String, String> environment, Path project, String... args) {
    List<String> java = HarnessProcess.java(tmp);
    List<String> command = new ArrayList<>(java.subList(1, java.size()));
    command.addAll(List.of("mcp", "--profile", "p", "--project", project.toString()));
    command.addAll(List.of(args));
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "HARNESS_HOME", home.toString(), "TMPDIR", tmp.toString(), "HARNESS_TTY", "none"));
    env.putAll(environment);
    StdioClientTransport stdio =
        new StdioClientTransport(
            ServerParameters.builder(java.get(0)).args(command).env(env).build(), JSON);
    stdio.setStdErrorHandler(stderr::add);
    client =
        McpClient.sync(new Recording(stdio))
            .requestTimeout(Duration.ofSeconds(120))
            .initializationTimeout(Duration.ofSeconds(120))
            .build();
    Set<Long> before =
        ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    try {
      client.initialize();
    } catch (RuntimeException e) {
      client.closeGracefully(); // stops the server that failed to initialize
      throw e;
    }
    // The server is the child that initializing started.
    server =
        ProcessHandle.current()
            .children()
            .filter(p -> !before.contains(p.pid()))
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(a -> List.of(a).contains("dev.periscope.harness.cli.Main"))
                        .orElse(false))
            .findFirst()
            .orElseThrow();
    watcher = new Thread(this::watch, "mcp-descendants");
    watcher.setDaemon(true);
    watcher.start();
  }

  public McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
    return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
  }

  /** The server process. */
  public ProcessHandle server() {
    return server;
  }

  private void watch() {
    descendants.add(server);
    while (!closed) {
      // Read each time: a process can exec another program under the same pid (a shell script
      // starts Node.js so).
      server
          .descendants()
          .forEach(
              p -> {
                descendants.add(p);
                p.info().command().ifPresent(commands::add);
              });
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Closes as the SDK client does (SIGTERM to the server), then waits for every process it started
   * to end.
   */
  @Override
  public void close() throws InterruptedException {
    try {
      client.closeGracefully();
    } finally {
      closed = true;
      watcher.join();
    }
  }

  /** The processes that outlived the connection by more than {@code grace}. */
  List<ProcessHandle> survivors(Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
      Thread.sleep(50);
    }
    return descendants.stream().filter(ProcessHandle::isAlive).toList();
  }

  /** Text content of a result, joined by newlines. */
  public static String text(McpSchema.CallToolResult r) {
    StringBuilder b = new StringBuilder();
    for (McpSchema.Content c : r.content()) {
      if (c instanceof McpSchema.TextContent t) {
        b.append(b.length() == 0 ? "" : "\n").append(t.text());
      }
    }
    return b.toString();
  }

  /** The structured content as plain JSON maps. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> structured(McpSchema.CallToolResult r) {
    return JSON.convertValue(r.structuredContent(), new TypeRef<Map<String, Object>>() {});
  }

  /** The ref of the first element of a result's observation with that accessible name. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> target(McpSchema.CallToolResult r, String name) {
    Map<String, Object> observation = (Map<String, Object>) structured(r).get("observation");
    for (Object e : (List<Object>) observation.get("elements")) {
      Map<String, Object> element = (Map<String, Object>) e;
      if (name.equals(element.get("name"))) {
        return Map.of("observation_id", observation.get("id"), "element_ref", element.get("ref"));
      }
    }
    throw new AssertionError("no element named " + name + " in " + observation);
  }

  /**
   * The SDK's stdio transport, with every message recorded; it offers the newest protocol version
   * it knows.
   */
  private final class Recording implements McpClientTransport {
    private final StdioClientTransport delegate;

    Recording(StdioClientTransport delegate) {
      this.delegate = delegate;
    }

    private void record(JSONRPCMessage message) {
      try {
        messages.add(JSON.writeValueAsString(message));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
      return delegate.connect(inbound -> handler.apply(inbound.doOnNext(this::record)));
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      record(message);
      return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
      return delegate.unmarshalFrom(data, type);
    }

    @Override
    public List<String> protocolVersions() {
      return List.of(ProtocolVersions.MCP_2025_06_18);
    }
  }
}
