#pragma once
// OTLP/HTTP's binary encoding (application/x-protobuf) onto the JSON encoding the OTLP reader
// already understands, so both encodings of one export become the same conversations: ids in
// lower-case hex, times and 64-bit integers as decimal strings, bytes in base64.

#include "domain/expected.h"

#include <QByteArray>

#include <nlohmann/json.hpp>

namespace verity {

// One ExportTraceServiceRequest. An error says what could not be decoded.
Expected<nlohmann::json> otlpJsonFromProtobuf(const QByteArray &body);

// An ExportTraceServiceResponse; partial_success is set only when some spans were refused.
QByteArray otlpProtobufResponse(qint64 rejectedSpans, const QString &errorMessage);
// A google.rpc.Status: the body of a refusal to a protobuf request.
QByteArray otlpRpcStatus(int code, const QString &message);
// Whether a decoded JSON body is a trace export at all (an object with "resourceSpans").
bool looksLikeOtlpTraceRequest(const nlohmann::json &value);

} // namespace verity
