package dev.periscope.examples.langchain4j;

import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A LangChain4j agent that browses with Periscope: LangChain4j's own MCP client talks to {@code
 * harness mcp --http} over the Streamable HTTP transport, and {@link McpToolProvider} offers the
 * server's browser tools to whatever {@link ChatModel} is given.
 *
 * <p>Run against a running server ({@code ./harness mcp --http 8931 --profile work --project DIR}):
 *
 * <pre>
 * mvn -q -pl examples/langchain4j compile exec:java \
 *   -Dexec.args="http://127.0.0.1:8931/mcp $HOME/.harness/profiles/work/mcp-http.token URL 'Add to cart'"
 * </pre>
 *
 * With no model service at hand, {@code main} drives it with {@link ScriptedChatModel}; put a real
 * {@code ChatModel} in its place for a real agent.
 */
public final class BrowserAgent implements AutoCloseable {

  /** The agent as LangChain4j's {@link AiServices} implements it. */
  public interface Assistant {
    @SystemMessage(
        "You use a web browser through tools. Open a page with browser_open, then act only on refs"
            + " of the latest observation, and say what the page shows.")
    Result<String> chat(@UserMessage String task);
  }

  private final McpClient mcp;
  private final Assistant assistant;

  private BrowserAgent(McpClient mcp, ChatModel model) {
    this.mcp = mcp;
    this.assistant =
        AiServices.builder(Assistant.class)
            .chatModel(model)
            .toolProvider(McpToolProvider.builder().mcpClients(mcp).build())
            .build();
  }

  /**
   * An MCP client of the server at {@code mcpUrl} ({@code http://127.0.0.1:8931/mcp}) with its
   * bearer token, in the agent session {@code session}: reconnecting under the same name resumes
   * that browser session, logged in.
   */
  public static McpClient mcpClient(String mcpUrl, String token, String session) {
    McpTransport transport =
        StreamableHttpMcpTransport.builder()
            .url(mcpUrl)
            .customHeaders(Map.of("Authorization", "Bearer " + token, "Periscope-Session", session))
            .timeout(Duration.ofSeconds(30))
            .build();
    return DefaultMcpClient.builder()
        .key("periscope")
        .clientName("periscope-langchain4j-example")
        .transport(transport)
        .toolExecutionTimeout(Duration.ofSeconds(120))
        .build();
  }

  /** The agent over that server's tools, thinking with {@code model}. */
  public static BrowserAgent connect(String mcpUrl, String token, String session, ChatModel model) {
    return new BrowserAgent(mcpClient(mcpUrl, token, session), model);
  }

  /** Runs one task to its end: the answer, and every tool call made on the way. */
  public Result<String> run(String task) {
    return assistant.chat(task);
  }

  /** The MCP client the agent's tools come from. */
  public McpClient mcp() {
    return mcp;
  }

  @Override
  public void close() throws Exception {
    mcp.close();
  }

  /** {@code MCP_URL TOKEN_FILE PAGE_URL [BUTTON [SESSION]]}: open the page, click the button. */
  public static void main(String[] args) throws Exception {
    if (args.length < 3 || args.length > 5) {
      System.err.println(
          "usage: BrowserAgent MCP_URL TOKEN_FILE PAGE_URL [BUTTON [SESSION]]\n"
              + "  e.g. http://127.0.0.1:8931/mcp $HOME/.harness/profiles/work/mcp-http.token"
              + " http://127.0.0.1:8000/ \"Add to cart\"");
      System.exit(2);
    }
    String token = readToken(Path.of(args[1]));
    String button = args.length > 3 ? args[3] : "Add to cart";
    String session = args.length > 4 ? args[4] : "langchain4j-example";
    try (BrowserAgent agent = connect(args[0], token, session, new ScriptedChatModel())) {
      Result<String> result =
          agent.run(
              "Open "
                  + args[2]
                  + " and click the button \""
                  + button
                  + "\", then tell me what the page shows.");
      result
          .toolExecutions()
          .forEach(
              t ->
                  System.out.println("tool " + t.request().name() + " " + t.request().arguments()));
      System.out.println(result.content());
    }
  }

  private static String readToken(Path file) throws IOException {
    return Files.readString(file).strip();
  }
}
