package dev.periscope.examples.springai;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;

/**
 * A Spring AI {@link ChatClient} whose tools are Periscope's browser tools, served by {@code
 * harness mcp --http} and reached through Spring AI's MCP integration ({@link
 * SyncMcpToolCallbackProvider} over the MCP Java SDK's Streamable HTTP client).
 *
 * <p>Run against a running server with a model of your own, or with {@link ScriptedChatModel} as
 * {@link #main} does:
 *
 * <pre>
 * java -cp 'target/classes:target/lib/*' dev.periscope.examples.springai.BrowserAgent \
 *     http://127.0.0.1:8931/mcp ~/.harness/profiles/work/mcp-http.token http://127.0.0.1:8000/ 'Add to cart'
 * </pre>
 */
public final class BrowserAgent {
  private BrowserAgent() {}

  /**
   * An initialized MCP client of {@code endpoint} (such as {@code http://127.0.0.1:8931/mcp}) that
   * sends the server's bearer token on every request and names its agent session ({@code session},
   * or null for a new one each time): reconnecting under the same name resumes that browser
   * session.
   */
  public static McpSyncClient connect(URI endpoint, String token, String session) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(
                endpoint.getScheme() + "://" + endpoint.getRawAuthority())
            .endpoint(endpoint.getRawPath())
            .httpRequestCustomizer(
                (request, method, uri, body, context) -> {
                  request.header("Authorization", "Bearer " + token);
                  if (session != null) {
                    request.header("Periscope-Session", session);
                  }
                })
            .build();
    McpSyncClient client =
        McpClient.sync(transport)
            .clientInfo(new McpSchema.Implementation("periscope-spring-ai-example", "0.1.0"))
            // A navigation or a wait can take a while: the server's own deadlines come first.
            .requestTimeout(Duration.ofSeconds(120))
            .build();
    client.initialize();
    return client;
  }

  /** A chat client on {@code model} whose tools are every tool {@code client}'s server offers. */
  public static ChatClient chatClient(ChatModel model, McpSyncClient client) {
    SyncMcpToolCallbackProvider tools =
        SyncMcpToolCallbackProvider.builder().mcpClients(client).build();
    return ChatClient.builder(model).defaultTools(tools).build();
  }

  /**
   * Opens {@code pageUrl}, clicks the button named {@code buttonName} and answers with what the
   * page shows then, with {@link ScriptedChatModel} standing in for a model.
   */
  public static String openAndClick(McpSyncClient client, String pageUrl, String buttonName) {
    ChatClient chat = chatClient(new ScriptedChatModel(pageUrl, buttonName), client);
    return chat.prompt()
        .user(
            "Open "
                + pageUrl
                + ", press the button \""
                + buttonName
                + "\" and tell me what the page says then.")
        .call()
        .content();
  }

  /** {@code MCP_URL TOKEN_FILE PAGE_URL [BUTTON_NAME [SESSION]]}. */
  public static void main(String[] args) throws IOException {
    if (args.length < 3 || args.length > 5) {
      System.err.println(
          "usage: BrowserAgent MCP_URL TOKEN_FILE PAGE_URL [BUTTON_NAME [SESSION]]\n"
              + "  MCP_URL    what harness mcp --http prints, such as http://127.0.0.1:8931/mcp\n"
              + "  TOKEN_FILE the profile's mcp-http.token\n"
              + "  BUTTON_NAME default: Add to cart");
      System.exit(2);
    }
    String token = Files.readString(Path.of(args[1])).strip();
    String button = args.length > 3 ? args[3] : "Add to cart";
    String session = args.length > 4 ? args[4] : null;
    McpSyncClient client = connect(URI.create(args[0]), token, session);
    try {
      System.out.println(openAndClick(client, args[2], button));
    } finally {
      client.closeGracefully();
    }
  }
}
