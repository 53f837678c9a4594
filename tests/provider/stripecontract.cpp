#include "stripecontract.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

namespace verity::test {

namespace {

// A form or query string as Stripe reads it: name=value pairs, percent- and plus-decoded.
QList<std::pair<QString, QString>> formFields(const QByteArray &encoded)
{
    QList<std::pair<QString, QString>> fields;
    for (const QByteArray &pair : encoded.split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype equals = pair.indexOf('=');
        const auto decode = [](QByteArray text) {
            return QString::fromUtf8(QByteArray::fromPercentEncoding(text.replace('+', ' ')));
        };
        fields.append({decode(pair.left(equals < 0 ? pair.size() : equals)),
                       equals < 0 ? QString() : decode(pair.mid(equals + 1))});
    }
    return fields;
}

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return value.toDouble() == double(qint64(value.toDouble())) ? QStringLiteral("integer")
                                                                    : QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    default:
        return QStringLiteral("nothing");
    }
}

} // namespace

StripeContract StripeContract::load(const QString &path, QString *problem)
{
    StripeContract contract;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("%1: %2").arg(path, file.errorString());
        return contract;
    }
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    contract.m_version =
            root.value(QStringLiteral("origin")).toObject().value(QStringLiteral("info_version")).toString();
    contract.m_operations = root.value(QStringLiteral("operations")).toObject();
    contract.m_schemas = root.value(QStringLiteral("schemas")).toObject();
    if (contract.m_version.isEmpty() || contract.m_operations.isEmpty() || contract.m_schemas.isEmpty())
        *problem = QStringLiteral("%1: no origin.info_version, operations or schemas").arg(path);
    return contract;
}

QString StripeContract::operationOf(const QString &method, const QString &path) const
{
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    QString templated;
    for (auto it = m_operations.begin(); it != m_operations.end(); ++it) {
        const QStringList words = it.key().split(u' ');
        if (words.value(0) != method)
            continue;
        const QStringList pattern = words.value(1).split(u'/', Qt::SkipEmptyParts);
        if (pattern.size() != segments.size())
            continue;
        bool literal = true;
        bool matches = true;
        for (qsizetype i = 0; i < pattern.size() && matches; ++i) {
            if (pattern.at(i).startsWith(u'{'))
                literal = false;
            else
                matches = pattern.at(i) == segments.at(i);
        }
        if (matches && literal)
            return it.key(); // /v1/payment_intents/search before /v1/payment_intents/{intent}
        if (matches)
            templated = it.key();
    }
    return templated;
}

QStringList StripeContract::checkType(const QJsonValue &type, const QJsonObject &definition,
                                      const QJsonValue &value, const QString &where) const
{
    if (value.isNull())
        return definition.value(QStringLiteral("nullable")).toBool()
                ? QStringList()
                : QStringList{QStringLiteral("%1 is null, which the description does not allow").arg(where)};
    const QString actual = typeName(value);
    if (type.isObject()) { // {"anyOf": [...]}
        for (const QJsonValue &member : type.toObject().value(QStringLiteral("anyOf")).toArray()) {
            const QString name = member.isObject()
                    ? member.toObject().value(QStringLiteral("type")).toString()
                    : member.toString();
            if (name == actual || (name == u"number" && actual == u"integer"))
                return actual == u"object" && definition.contains(QStringLiteral("ref"))
                        ? checkValue(definition.value(QStringLiteral("ref")).toString(), value, where)
                        : QStringList();
        }
        return {QStringLiteral("%1 is %2, not one of %3")
                        .arg(where, actual,
                             QString::fromUtf8(
                                     QJsonDocument(type.toObject().value(QStringLiteral("anyOf")).toArray())
                                             .toJson(QJsonDocument::Compact)))};
    }
    const QString wanted = type.toString();
    if (wanted != actual && !(wanted == u"number" && actual == u"integer"))
        return {QStringLiteral("%1 is %2, not %3").arg(where, actual, wanted)};
    const QJsonArray allowed = definition.value(QStringLiteral("enum")).toArray();
    if (!allowed.isEmpty() && !allowed.contains(value))
        return {QStringLiteral("%1 is '%2', not one of the values the description allows")
                        .arg(where, value.toString())};
    QStringList problems;
    if (actual == u"array") {
        const QString items = definition.value(QStringLiteral("items")).toString();
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString at = QStringLiteral("%1[%2]").arg(where).arg(i);
            problems += m_schemas.contains(items) ? checkValue(items, array.at(i), at)
                                                  : checkType(items, {}, array.at(i), at);
        }
    }
    if (actual == u"object" && definition.contains(QStringLiteral("ref")))
        problems += checkValue(definition.value(QStringLiteral("ref")).toString(), value, where);
    return problems;
}

QStringList StripeContract::checkValue(const QString &schemaName, const QJsonValue &value,
                                       const QString &where) const
{
    const QJsonObject schema = m_schemas.value(schemaName).toObject();
    if (schema.isEmpty())
        return {QStringLiteral("%1: the description has no schema %2").arg(where, schemaName)};
    if (!value.isObject())
        return {QStringLiteral("%1 is %2, not a %3 object").arg(where, typeName(value), schemaName)};
    const QJsonObject object = value.toObject();
    const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
    QStringList problems;
    for (const QJsonValue &required : schema.value(QStringLiteral("required")).toArray()) {
        if (!object.contains(required.toString()))
            problems << QStringLiteral("%1 has no %2, which every %3 has")
                                .arg(where, required.toString(), schemaName);
    }
    // The excerpt keeps only some of each schema's properties: the others are not judged.
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!properties.contains(it.key()))
            continue;
        const QJsonObject definition = properties.value(it.key()).toObject();
        problems += checkType(definition.contains(QStringLiteral("anyOf"))
                                      ? QJsonValue(QJsonObject{{QStringLiteral("anyOf"),
                                                                definition.value(QStringLiteral("anyOf"))}})
                                      : definition.value(QStringLiteral("type")),
                              definition, it.value(), QStringLiteral("%1.%2").arg(where, it.key()));
    }
    return problems;
}

QStringList StripeContract::checkReads(const QString &schemaName, const QStringList &fields) const
{
    const QJsonObject properties =
            m_schemas.value(schemaName).toObject().value(QStringLiteral("properties")).toObject();
    QStringList problems;
    for (const QString &field : fields) {
        if (!properties.contains(field))
            problems << QStringLiteral("the client reads %1.%2, which the description does not have")
                                .arg(schemaName, field);
    }
    return problems;
}

QStringList StripeContract::checkParameter(const QJsonObject &operation, const QString &in,
                                           const QString &name, const QString &value) const
{
    // metadata[intent_key], created[gte]: a deepObject parameter and one of its keys.
    static const QRegularExpression deep(QStringLiteral("^([a-z_]+)\\[([^\\]]*)\\]$"));
    const QRegularExpressionMatch match = deep.match(name);
    const QString base = match.hasMatch() ? match.captured(1) : name;
    QJsonObject parameter;
    for (const QJsonValue &candidate : operation.value(QStringLiteral("parameters")).toArray()) {
        const QJsonObject object = candidate.toObject();
        if (object.value(QStringLiteral("name")).toString() == base
            && object.value(QStringLiteral("in")).toString() == in)
            parameter = object;
    }
    if (parameter.isEmpty())
        return {QStringLiteral("'%1' is not a %2 parameter of this operation").arg(name, in)};
    const QJsonValue type = parameter.value(QStringLiteral("type"));
    if (match.hasMatch()) {
        if (parameter.value(QStringLiteral("style")).toString() != u"deepObject")
            return {QStringLiteral("'%1' is sent as %2[...], but %2 is not a deepObject").arg(name, base)};
        const QJsonArray keys = parameter.value(QStringLiteral("keys")).toArray();
        if (!keys.isEmpty() && !keys.contains(match.captured(2)))
            return {QStringLiteral("'%1': %2 is not a key of %3").arg(name, match.captured(2), base)};
        if (parameter.value(QStringLiteral("keyType")).toString() == u"integer"
            && !QRegularExpression(QStringLiteral("^-?[0-9]+$")).match(value).hasMatch())
            return {QStringLiteral("'%1' is '%2', not an integer").arg(name, value)};
        return {};
    }
    const QString wanted = type.isString() ? type.toString() : QString();
    if (wanted == u"integer" && !QRegularExpression(QStringLiteral("^-?[0-9]+$")).match(value).hasMatch())
        return {QStringLiteral("'%1' is '%2', not an integer").arg(name, value)};
    if (wanted == u"boolean" && value != u"true" && value != u"false")
        return {QStringLiteral("'%1' is '%2', not a boolean").arg(name, value)};
    const QJsonArray allowed = parameter.value(QStringLiteral("enum")).toArray();
    if (!allowed.isEmpty() && !allowed.contains(value))
        return {QStringLiteral("'%1' is '%2', not one of its values").arg(name, value)};
    return {};
}

QStringList StripeContract::checkRequest(const SandboxRequest &request) const
{
    const QString name = operationOf(request.method, request.path);
    if (name.isEmpty())
        return {QStringLiteral("%1 %2 is no operation of the description").arg(request.method, request.path)};
    const QJsonObject operation = m_operations.value(name).toObject();
    const bool post = request.method == u"POST";
    const QString in = post ? QStringLiteral("body") : QStringLiteral("query");
    QStringList problems;
    QSet<QString> given;
    for (const auto &[field, value] : formFields(post ? request.body : request.query)) {
        given.insert(field.section(u'[', 0, 0));
        for (const QString &problem : checkParameter(operation, in, field, value))
            problems << QStringLiteral("%1: %2").arg(name, problem);
    }
    for (const QJsonValue &candidate : operation.value(QStringLiteral("parameters")).toArray()) {
        const QJsonObject parameter = candidate.toObject();
        const QString parameterName = parameter.value(QStringLiteral("name")).toString();
        if (parameter.value(QStringLiteral("required")).toBool()
            && parameter.value(QStringLiteral("in")).toString() != u"path" && !given.contains(parameterName))
            problems << QStringLiteral("%1: the required parameter '%2' is missing").arg(name, parameterName);
    }
    if (post
        && !request.contentType.startsWith(operation.value(QStringLiteral("encoding")).toString().toUtf8()))
        problems << QStringLiteral("%1: sent as '%2', not %3")
                            .arg(name, QString::fromUtf8(request.contentType),
                                 operation.value(QStringLiteral("encoding")).toString());
    if (!post && !request.body.isEmpty())
        problems << QStringLiteral("%1: a GET with a body").arg(name);
    // The headers, by Stripe's API reference (the description lists none).
    if (!request.authorization.startsWith("Bearer "))
        problems << QStringLiteral("%1: no 'Authorization: Bearer <key>'").arg(name);
    if (QString::fromUtf8(request.stripeVersion) != m_version)
        problems << QStringLiteral("%1: Stripe-Version is '%2', not the described version %3")
                            .arg(name, QString::fromUtf8(request.stripeVersion), m_version);
    if (post && request.idempotencyKey.isEmpty())
        problems << QStringLiteral("%1: a write without an Idempotency-Key").arg(name);
    if (!request.stripeAccount.isEmpty() && !request.stripeAccount.startsWith("acct_"))
        problems << QStringLiteral("%1: Stripe-Account '%2' is not an account id (acct_…)")
                            .arg(name, QString::fromUtf8(request.stripeAccount));
    return problems;
}

QStringList StripeContract::checkAnswer(const SandboxRequest &request, int status,
                                        const QByteArray &body) const
{
    const QString name = operationOf(request.method, request.path);
    const QJsonObject operation = m_operations.value(name).toObject();
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        return {QStringLiteral("%1 answered %2 with no JSON: %3")
                        .arg(name)
                        .arg(status)
                        .arg(error.errorString())};
    const QString schema = status >= 200 && status < 300
            ? operation.value(QStringLiteral("response")).toString()
            : operation.value(QStringLiteral("errorResponse")).toString();
    QStringList problems =
            checkValue(schema, document.object(), QStringLiteral("%1 (HTTP %2)").arg(name).arg(status));
    if (schema == u"error")
        problems += checkValue(QStringLiteral("api_errors"), document.object().value(QStringLiteral("error")),
                               QStringLiteral("%1 (HTTP %2).error").arg(name).arg(status));
    return problems;
}

} // namespace verity::test
