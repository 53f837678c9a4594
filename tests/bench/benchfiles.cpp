#include "benchfiles.h"

#include <QFile>

namespace verity::bench {

namespace {

QByteArray native(qint64 n)
{
    const QByteArray t = "B-" + QByteArray::number(n);
    const QByteArray order = "SU-" + QByteArray::number(100000 + n);
    QByteArray out;
    out += R"({"type":"ticket_opened","ticket":")" + t
            + R"(","at":"2026-03-17T14:28:51Z","subject":"Shelf arrived cracked","order":{"id":")" + order
            + R"(","items":[{"id":"OAK-4S","title":"4-shelf oak unit","quantity":1,"amount_cents":11800}]},"seller":{"id":"seller-)"
            + QByteArray::number(n % 500) + R"(","name":"Seller )" + QByteArray::number(n % 500) + R"("}})"
            + "\n";
    out += R"({"type":"message","ticket":")" + t
            + R"(","at":"2026-03-17T14:29:00Z","from":"customer","text":"The unit arrived with a cracked shelf. I would like a refund."})"
            + "\n";
    out += R"({"type":"tool_call","ticket":")" + t
            + R"(","at":"2026-03-17T14:30:00Z","call_id":"c1","tool":"get_order","arguments":{"order_id":")"
            + order + R"("}})" + "\n";
    out += R"({"type":"tool_result","ticket":")" + t
            + R"(","at":"2026-03-17T14:30:01Z","call_id":"c1","result":{"status":"delivered"}})" + "\n";
    out += R"({"type":"tool_call","ticket":")" + t
            + R"(","at":"2026-03-17T14:32:07Z","call_id":"c2","tool":"issue_refund","arguments":{"order_id":")"
            + order + R"(","item_id":"OAK-4S","amount_cents":11800}})" + "\n";
    out += R"({"type":"tool_result","ticket":")" + t
            + R"(","at":"2026-03-17T14:32:12Z","call_id":"c2","result":)"
            + (n % 10 == 0 ? QByteArray(R"({"error":"upstream timeout"})")
                           : QByteArray(R"({"status":"succeeded"})"))
            + "}\n";
    out += R"({"type":"reply","ticket":")" + t
            + R"(","at":"2026-03-17T14:32:24Z","text":"I've refunded $118.00 to your original payment method."})"
            + "\n";
    return out;
}

QByteArray chat(qint64 n)
{
    const QByteArray order = "SU-" + QByteArray::number(100000 + n);
    const QByteArray args =
            R"({\"order_id\":\")" + order + R"(\",\"item_id\":\"OAK-4S\",\"amount_cents\":11800})";
    QByteArray out = R"({"id":"chat-)" + QByteArray::number(n) + R"(","messages":[)";
    out += R"({"role":"system","content":"You are a support agent for a furniture marketplace."},)";
    out += R"({"role":"user","content":"The unit arrived with a cracked shelf. I would like a refund."},)";
    out += R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"issue_refund","arguments":")"
            + args + R"("}}]},)";
    out += R"({"role":"tool","tool_call_id":"c1","content":")"
            + (n % 10 == 0 ? QByteArray("Error: upstream timeout") : QByteArray("refund issued")) + R"("},)";
    if (n % 10 == 0) {
        out += R"({"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"issue_refund","arguments":")"
                + args + R"("}}]},)";
        out += R"({"role":"tool","tool_call_id":"c2","content":"refund issued"},)";
    }
    out += R"({"role":"assistant","content":"I've refunded $118.00 to your original payment method."}]})"
            + QByteArray("\n");
    return out;
}

QByteArray hex(qint64 n, int width)
{
    return QByteArray::number(n, 16).rightJustified(width, '0');
}

QByteArray otlpSpan(qint64 n, int k, const QByteArray &tool, const QByteArray &args, const QByteArray &result,
                    bool error)
{
    const QByteArray start = QByteArray::number(1773757920000000000LL + n * 1000000000LL + k * 1000000LL);
    const QByteArray end =
            QByteArray::number(1773757920000000000LL + n * 1000000000LL + k * 1000000LL + 500000LL);
    QByteArray span = R"({"traceId":")" + hex(n + 1, 32) + R"(","spanId":")" + hex(n * 4 + k + 1, 16)
            + R"(","name":"execute_tool )" + tool + R"(","kind":1,"startTimeUnixNano":")" + start
            + R"(","endTimeUnixNano":")" + end + R"(","attributes":[)";
    span += R"({"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},)";
    span += R"({"key":"gen_ai.conversation.id","value":{"stringValue":"conv-)" + QByteArray::number(n)
            + R"("}},)";
    span += R"({"key":"gen_ai.tool.name","value":{"stringValue":")" + tool + R"("}},)";
    span += R"({"key":"gen_ai.tool.call.id","value":{"stringValue":"call-)" + QByteArray::number(k)
            + R"("}},)";
    span += R"({"key":"gen_ai.tool.call.arguments","value":{"stringValue":")" + args + R"("}},)";
    span += R"({"key":"gen_ai.tool.call.result","value":{"stringValue":")" + result + R"("}}],)";
    span += error ? R"("status":{"code":2,"message":"timeout"}})" : R"("status":{"code":1}})";
    return span;
}

QByteArray otlp(qint64 n)
{
    const QByteArray args = R"({\"order_id\":\"SU-)" + QByteArray::number(100000 + n)
            + R"(\",\"item_id\":\"OAK-4S\",\"amount_cents\":11800})";
    QByteArray spans =
            otlpSpan(n, 0, "get_order", R"({\"order_id\":\"SU-1\"})", R"({\"status\":\"delivered\"})", false);
    spans += ','
            + otlpSpan(n, 1, "issue_refund", args,
                       n % 10 == 0 ? "gateway timeout" : R"({\"status\":\"succeeded\"})", n % 10 == 0);
    if (n % 10 == 0)
        spans += ',' + otlpSpan(n, 2, "issue_refund", args, R"({\"status\":\"succeeded\"})", false);
    return R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"support-agent"}}]},"scopeSpans":[{"scope":{"name":"agent"},"spans":[)"
            + spans + "]}]}]}\n";
}

QByteArray tau2Simulation(qint64 n)
{
    QByteArray out = R"({"id":"sim-)" + QByteArray::number(n) + R"(","task_id":")"
            + QByteArray::number(n % 100) + R"(","trial":0,"termination_reason":"user_stop","messages":[)";
    out += R"({"role":"assistant","content":"Hi! How can I help you today?","timestamp":"2025-08-01T16:16:37.295213"},)";
    out += R"({"role":"user","content":"I want to cancel my pending order #W)" + QByteArray::number(n)
            + R"(.","timestamp":"2025-08-01T16:16:38.281204"},)";
    out += R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","name":"cancel_pending_order","arguments":{"order_id":"#W)"
            + QByteArray::number(n)
            + R"(","reason":"no longer needed"},"requestor":"assistant"}],"timestamp":"2025-08-01T16:16:39.0"},)";
    out += R"({"role":"tool","id":"call_1","content":"{\"order_id\": \"#W)" + QByteArray::number(n)
            + R"(\", \"status\": \"cancelled\"}","requestor":"assistant","error":false,"timestamp":"2025-08-01T16:16:39.5"},)";
    out += R"({"role":"assistant","content":"Your order is cancelled.","timestamp":"2025-08-01T16:16:40.0"}]})";
    return out;
}

} // namespace

qint64 writeFile(const QString &format, const QString &path, qint64 megabytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return -1;
    const qint64 target = megabytes * 1024 * 1024;
    qint64 n = 0;
    if (format == QLatin1String("tau2")) {
        file.write(
                R"({"timestamp":"2025-08-01T16:16:36.490106","info":{"num_trials":1},"tasks":[],"simulations":[)");
        while (file.size() < target) {
            if (n > 0)
                file.write(",");
            file.write(tau2Simulation(n++));
        }
        file.write("]}\n");
        return n;
    }
    while (file.size() < target) {
        if (format == QLatin1String("native"))
            file.write(native(n));
        else if (format == QLatin1String("openai-chat"))
            file.write(chat(n));
        else
            file.write(otlp(n));
        ++n;
    }
    return n;
}

} // namespace verity::bench
