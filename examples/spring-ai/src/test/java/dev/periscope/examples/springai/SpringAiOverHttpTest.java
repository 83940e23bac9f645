package dev.periscope.examples.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Spring AI chat client using Periscope's tools from a real {@code harness mcp --http} server,
 * through {@link SyncMcpToolCallbackProvider}: a scripted model opens a page on 127.0.0.1 and
 * presses a button by its name, and every tool's input schema reaches the model as the server sent
 * it.
 */
class SpringAiOverHttpTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir static Path dir;
  private static HarnessHttpServer server;
  private static ShopPage page;

  @BeforeAll
  static void start() throws Exception {
    page = new ShopPage();
    server = new HarnessHttpServer(Harness.install(dir));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (server != null) {
        int code = server.stop(Duration.ofSeconds(15));
        System.out.println("harness mcp --http exited " + code + " on SIGTERM");
      }
    } finally {
      if (server != null) {
        server.close();
      }
      if (page != null) {
        page.close();
      }
    }
  }

  @Test
  void aChatClientOpensThePageAndPressesTheButtonByItsName() throws Exception {
    McpSyncClient client = BrowserAgent.connect(server.endpoint, server.token, "spring-ai-shop");
    try {
      ScriptedChatModel model = new ScriptedChatModel(page.url(), "Add to cart");
      String answer =
          BrowserAgent.chatClient(model, client)
              .prompt()
              .user("Put the backpack into the cart at " + page.url())
              .call()
              .content();

      assertTrue(answer.contains(ShopPage.AFTER), answer);
      assertFalse(answer.contains(ShopPage.BEFORE), answer);
      List<ScriptedChatModel.ToolResult> results = model.toolResults();
      assertEquals(
          List.of("browser_open", "browser_click"),
          results.stream().map(ScriptedChatModel.ToolResult::tool).toList());

      // What Spring AI hands the model: the JSON of the MCP result's content list (one text item,
      // written without its "type"), not its structured content.
      String opened = results.get(0).responseData();
      JsonNode content = JSON.readTree(opened);
      assertTrue(content.isArray(), opened);
      assertEquals(1, content.size(), opened);
      assertEquals(List.of("text"), List.copyOf(content.get(0).propertyNames()), opened);
      assertTrue(content.get(0).get("text").asString().contains("button — Add to cart"), opened);
      assertFalse(
          opened.contains("structuredContent") || opened.contains("environment_id"), opened);
      System.out.println("Spring AI handed the model, for browser_open:\n" + opened);

      // The model found the ref by the name: the third button, not the first.
      String openedText = ScriptedChatModel.text(opened);
      assertTrue(openedText.contains("button — Save for later"), openedText);

      // Every tool the server offers was offered to the model, under its own name.
      List<String> served = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
      assertEquals(served, model.toolsOffered().get(0));

      // The page changed, seen apart from the model: the same agent session observes it.
      McpSchema.CallToolResult observed =
          client.callTool(new McpSchema.CallToolRequest("browser_observe", Map.of()));
      String text = ((McpSchema.TextContent) observed.content().get(0)).text();
      assertTrue(text.contains(ShopPage.AFTER), text);
      assertFalse(text.contains(ShopPage.BEFORE), text);
    } finally {
      client.closeGracefully();
    }
    // The Periscope-Session header named the agent session.
    assertTrue(server.err().contains("agent session spring-ai-shop"), server.err());
  }

  @Test
  void everyToolSchemaReachesTheModelAsTheServerSentIt() throws Exception {
    Map<String, JsonNode> sent = rawToolsList();
    McpSyncClient client = BrowserAgent.connect(server.endpoint, server.token, null);
    try {
      ToolCallback[] callbacks =
          SyncMcpToolCallbackProvider.builder().mcpClients(client).build().getToolCallbacks();
      Map<String, ToolCallback> given =
          Stream.of(callbacks)
              .collect(
                  Collectors.toMap(
                      c -> c.getToolDefinition().name(),
                      Function.identity(),
                      (a, b) -> a,
                      LinkedHashMap::new));
      assertEquals(sent.keySet(), given.keySet());
      assertTrue(sent.size() >= 20, "tools: " + sent.keySet());

      List<String> differences = new ArrayList<>();
      int properties = 0;
      for (Map.Entry<String, JsonNode> tool : sent.entrySet()) {
        JsonNode schema = tool.getValue().get("inputSchema");
        JsonNode model = JSON.readTree(given.get(tool.getKey()).getToolDefinition().inputSchema());
        differences.addAll(Schemas.differences(tool.getKey(), schema, model));
        assertEquals(
            tool.getValue().get("description").asString(),
            given.get(tool.getKey()).getToolDefinition().description(),
            tool.getKey());
        for (String name : schema.path("properties").propertyNames()) {
          properties++;
          JsonNode property = model.path("properties").path(name);
          assertTrue(
              property.path("type").isString(), tool.getKey() + "." + name + ": " + property);
        }
      }
      assertEquals(List.of(), differences);
      System.out.println(
          sent.size()
              + " tools, "
              + properties
              + " properties: the schemas Spring AI hands a model"
              + " are the server's");
    } finally {
      client.closeGracefully();
    }
  }

  @Test
  void theSchemaComparisonSeesAPropertyThatLostItsTypeEnumBoundOrDescription() throws Exception {
    Map<String, JsonNode> sent = rawToolsList();
    JsonNode click = sent.get("browser_click").get("inputSchema");
    assertEquals(List.of(), Schemas.differences("browser_click", click, click.deepCopy()));

    ObjectNode untyped = (ObjectNode) click.deepCopy();
    ((ObjectNode) untyped.get("properties").get("button")).remove("type");
    assertTrue(
        Schemas.differences("browser_click", click, untyped)
            .contains("browser_click.button: lost its type \"string\""),
        Schemas.differences("browser_click", click, untyped).toString());

    ObjectNode fewerValues = (ObjectNode) click.deepCopy();
    ((tools.jackson.databind.node.ArrayNode)
            fewerValues.get("properties").get("button").get("enum"))
        .remove(4);
    assertTrue(
        Schemas.differences("browser_click", click, fewerValues)
            .get(0)
            .startsWith("browser_click.button: enum"),
        Schemas.differences("browser_click", click, fewerValues).toString());

    ObjectNode unbounded = (ObjectNode) click.deepCopy();
    ((ObjectNode) unbounded.get("properties").get("click_count")).remove("maximum");
    assertEquals(
        List.of("browser_click.click_count: maximum 3 became null"),
        Schemas.differences("browser_click", click, unbounded));

    ObjectNode undescribed = (ObjectNode) click.deepCopy();
    ((ObjectNode) undescribed.get("properties").get("element_ref")).put("description", "");
    assertEquals(1, Schemas.differences("browser_click", click, undescribed).size());
  }

  @Test
  void aFailureReachesTheModelAsTheExceptionsMessageAndAScreenshotAsBase64InJson()
      throws Exception {
    McpSyncClient client = BrowserAgent.connect(server.endpoint, server.token, null);
    try {
      Map<String, ToolCallback> tools =
          Stream.of(
                  SyncMcpToolCallbackProvider.builder()
                      .mcpClients(client)
                      .build()
                      .getToolCallbacks())
              .collect(Collectors.toMap(c -> c.getToolDefinition().name(), Function.identity()));
      tools.get("browser_open").call("{\"url\": \"" + page.url() + "\"}");

      // A result with isError: true is a ToolExecutionException; the model gets its message.
      ToolExecutionException failure =
          assertThrows(
              ToolExecutionException.class,
              () ->
                  tools
                      .get("browser_click")
                      .call("{\"observation_id\": \"observation-none\", \"element_ref\": \"e1\"}"));
      String handed = DefaultToolExecutionExceptionProcessor.builder().build().process(failure);
      System.out.println("Spring AI hands the model, for a failed browser_click:\n" + handed);
      assertTrue(
          handed.startsWith("Error calling tool: [TextContent[annotations=null, text="), handed);
      assertTrue(handed.contains("BROWSER_"), handed);

      // A screenshot: its image item goes into the same JSON, base64.
      String shot = tools.get("browser_screenshot").call("{}");
      JsonNode content = JSON.readTree(shot);
      List<String> kinds = new ArrayList<>();
      for (JsonNode item : content) {
        kinds.add(String.join(",", item.propertyNames()));
      }
      System.out.println(
          "Spring AI hands the model, for browser_screenshot: "
              + shot.length()
              + " characters, items "
              + kinds);
      assertTrue(kinds.contains("data,mimeType"), kinds.toString());
    } finally {
      client.closeGracefully();
    }
  }

  /** {@code tools/list} over plain HTTP, each tool as the server sent it, by name. */
  private static Map<String, JsonNode> rawToolsList() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> init =
        post(
            http,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    assertEquals(200, init.statusCode(), init.body());
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    try {
      post(http, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      HttpResponse<String> list =
          post(http, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
      assertEquals(200, list.statusCode(), list.body());
      JsonNode answer = message(list);
      Map<String, JsonNode> tools = new LinkedHashMap<>();
      for (JsonNode tool : answer.get("result").get("tools")) {
        tools.put(tool.get("name").asString(), tool);
      }
      return tools;
    } finally {
      http.send(
          HttpRequest.newBuilder(server.endpoint)
              .DELETE()
              .header("Authorization", "Bearer " + server.token)
              .header("Mcp-Session-Id", session)
              .build(),
          HttpResponse.BodyHandlers.discarding());
    }
  }

  private static HttpResponse<String> post(HttpClient http, String session, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.endpoint)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", "Bearer " + server.token);
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON-RPC message of an answer: its body, or the data of its one SSE event. */
  private static JsonNode message(HttpResponse<String> response) {
    String body = response.body().strip();
    if (body.startsWith("{")) {
      return JSON.readTree(body);
    }
    StringBuilder data = new StringBuilder();
    for (String line : body.split("\r?\n")) {
      if (line.startsWith("data:")) {
        data.append(line.substring(5).strip());
      }
    }
    return JSON.readTree(data.toString());
  }
}
