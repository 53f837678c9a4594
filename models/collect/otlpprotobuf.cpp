#include "otlpprotobuf.h"

#include "otlptrace.pb.h"

#include <limits>

namespace verity {

using nlohmann::json;

namespace {

// Deeper than any real attribute; a hostile payload could nest far enough to exhaust the stack.
constexpr int maxValueDepth = 64;

std::string hex(const std::string &bytes)
{
    return QByteArray::fromStdString(bytes).toHex().toStdString();
}

std::string decimal(quint64 value)
{
    return std::to_string(value);
}

json keyValues(const google::protobuf::RepeatedPtrField<otlp::KeyValue> &pairs, int depth);

json anyValue(const otlp::AnyValue &value, int depth)
{
    if (depth > maxValueDepth)
        return json::object(); // the reader refuses an AnyValue it cannot read, naming the attribute
    switch (value.value_case()) {
    case otlp::AnyValue::kStringValue:
        return json{{"stringValue", value.string_value()}};
    case otlp::AnyValue::kBoolValue:
        return json{{"boolValue", value.bool_value()}};
    case otlp::AnyValue::kIntValue:
        return json{{"intValue", std::to_string(value.int_value())}};
    case otlp::AnyValue::kDoubleValue:
        return json{{"doubleValue", value.double_value()}};
    case otlp::AnyValue::kArrayValue: {
        json values = json::array();
        for (const otlp::AnyValue &item : value.array_value().values())
            values.push_back(anyValue(item, depth + 1));
        return json{{"arrayValue", json{{"values", std::move(values)}}}};
    }
    case otlp::AnyValue::kKvlistValue:
        return json{{"kvlistValue", json{{"values", keyValues(value.kvlist_value().values(), depth + 1)}}}};
    case otlp::AnyValue::kBytesValue:
        return json{{"bytesValue", QByteArray::fromStdString(value.bytes_value()).toBase64().toStdString()}};
    case otlp::AnyValue::VALUE_NOT_SET:
        break;
    }
    return json::object();
}

json keyValues(const google::protobuf::RepeatedPtrField<otlp::KeyValue> &pairs, int depth)
{
    json list = json::array();
    for (const otlp::KeyValue &pair : pairs)
        list.push_back(json{{"key", pair.key()}, {"value", anyValue(pair.value(), depth)}});
    return list;
}

json span(const otlp::Span &from)
{
    json out{{"traceId", hex(from.trace_id())},
             {"spanId", hex(from.span_id())},
             {"name", from.name()},
             {"kind", from.kind()},
             {"startTimeUnixNano", decimal(from.start_time_unix_nano())},
             {"endTimeUnixNano", decimal(from.end_time_unix_nano())},
             {"attributes", keyValues(from.attributes(), 0)}};
    if (!from.parent_span_id().empty())
        out["parentSpanId"] = hex(from.parent_span_id());
    if (from.has_status()) {
        json status{{"code", from.status().code()}};
        if (!from.status().message().empty())
            status["message"] = from.status().message();
        out["status"] = std::move(status);
    }
    if (from.events_size() > 0) {
        json events = json::array();
        for (const otlp::Span::Event &event : from.events())
            events.push_back(json{{"timeUnixNano", decimal(event.time_unix_nano())},
                                  {"name", event.name()},
                                  {"attributes", keyValues(event.attributes(), 0)}});
        out["events"] = std::move(events);
    }
    return out;
}

} // namespace

Expected<json> otlpJsonFromProtobuf(const QByteArray &body)
{
    if (body.size() > std::numeric_limits<int>::max())
        return makeError(QStringLiteral("the request is too large to decode"));
    otlp::ExportTraceServiceRequest request;
    if (!request.ParseFromArray(body.constData(), int(body.size())))
        return makeError(QStringLiteral(
                "the body is not a protobuf ExportTraceServiceRequest (OTLP/HTTP, application/x-protobuf)"));
    json resourceSpans = json::array();
    for (const otlp::ResourceSpans &resource : request.resource_spans()) {
        json scopes = json::array();
        for (const otlp::ScopeSpans &scope : resource.scope_spans()) {
            json spans = json::array();
            for (const otlp::Span &each : scope.spans())
                spans.push_back(span(each));
            json scopeJson{{"spans", std::move(spans)}};
            if (scope.has_scope())
                scopeJson["scope"] =
                        json{{"name", scope.scope().name()}, {"version", scope.scope().version()}};
            scopes.push_back(std::move(scopeJson));
        }
        json resourceJson{{"scopeSpans", std::move(scopes)}};
        if (resource.has_resource())
            resourceJson["resource"] = json{{"attributes", keyValues(resource.resource().attributes(), 0)}};
        resourceSpans.push_back(std::move(resourceJson));
    }
    return json{{"resourceSpans", std::move(resourceSpans)}};
}

QByteArray otlpProtobufResponse(qint64 rejectedSpans, const QString &errorMessage)
{
    otlp::ExportTraceServiceResponse response;
    if (rejectedSpans > 0 || !errorMessage.isEmpty()) {
        response.mutable_partial_success()->set_rejected_spans(rejectedSpans);
        response.mutable_partial_success()->set_error_message(errorMessage.toStdString());
    }
    return QByteArray::fromStdString(response.SerializeAsString());
}

QByteArray otlpRpcStatus(int code, const QString &message)
{
    otlp::RpcStatus status;
    status.set_code(code);
    status.set_message(message.toStdString());
    return QByteArray::fromStdString(status.SerializeAsString());
}

bool looksLikeOtlpTraceRequest(const json &value)
{
    return value.is_object() && value.contains("resourceSpans");
}

} // namespace verity
