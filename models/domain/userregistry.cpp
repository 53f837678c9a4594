#include "userregistry.h"

#include "jsontext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <nlohmann/json.hpp>

namespace verity {

using nlohmann::json;

namespace {

json fieldJson(const IntentField &field)
{
    switch (field.type) {
    case IntentField::Type::String:
        return field.name.toStdString();
    case IntentField::Type::Integer:
        return json{{"name", field.name.toStdString()}, {"type", "integer"}};
    case IntentField::Type::Sha256:
        return json{{"name", field.name.toStdString()}, {"type", "sha256"}};
    case IntentField::Type::Json:
        return json{{"name", field.name.toStdString()}, {"type", "json"}};
    }
    Q_UNREACHABLE();
}

} // namespace

Expected<void> saveToolToUserRegistry(const QString &path, const ToolSpec &spec)
{
    json root{{"format", "verity-tool-registry"}, {"version", 1}, {"tools", json::object()}};
    QFile existing(path);
    if (existing.exists()) {
        if (!existing.open(QIODevice::ReadOnly))
            return makeError(
                    QStringLiteral("%1: cannot read the registry: %2").arg(path, existing.errorString()));
        const QByteArray text = existing.readAll();
        // A file that does not load is not overwritten: it may hold work the user wants back.
        if (Expected<ToolRegistry> check = ToolRegistry().extendedWith(text, path); !check)
            return makeError(check.message()
                             + QStringLiteral(" (fix or move the file, then classify again)"));
        root = json::parse(text.constBegin(), text.constEnd(), nullptr, false);
        if (!root.contains("tools") || !root["tools"].is_object())
            root["tools"] = json::object();
    }

    json tool{{"class", toolClassId(spec.toolClass).toStdString()}};
    if (isWrite(spec.toolClass)) {
        json intent = json::array();
        for (const IntentField &field : spec.intent)
            intent.push_back(fieldJson(field));
        tool["intent"] = intent;
        if (!spec.amountField.isEmpty())
            tool["amount"] = spec.amountField.toStdString();
        if (!spec.payment.isEmpty()) {
            json places = json::array();
            for (const PaymentField &field : spec.payment)
                places.push_back(field.text.toStdString());
            tool["payment"] = places;
        }
        if (spec.lookup) {
            json filter = json::object();
            for (const auto &[param, argument] : spec.lookup->filter)
                filter[param.toStdString()] = argument.toStdString();
            tool["lookup"] = json{{"system", spec.lookup->system.toStdString()},
                                  {"path", spec.lookup->path.toStdString()},
                                  {"filter", filter},
                                  {"key", spec.lookup->key.toStdString()}};
        }
    }
    root["tools"][spec.name.toStdString()] = tool;

    const QByteArray text = QByteArray::fromStdString(root.dump(2)) + '\n';
    if (Expected<ToolRegistry> check = ToolRegistry().extendedWith(text, path); !check)
        return makeError(check.message());
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return makeError(QStringLiteral("%1: cannot save the registry: %2").arg(path, file.errorString()));
    return {};
}

QList<IntentField> suggestIntentFields(const QString &argumentsJson)
{
    QList<IntentField> fields;
    const json arguments = json::parse(argumentsJson.toStdString(), nullptr, false);
    if (!arguments.is_object())
        return fields;
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        IntentField field;
        field.name = fromUtf8String(it.key());
        const json &value = it.value();
        if (value.is_number_integer())
            field.type = IntentField::Type::Integer;
        else if (value.is_structured() || value.is_number_float() || value.is_boolean())
            field.type = IntentField::Type::Json;
        else if (value.is_string() && value.get_ref<const std::string &>().size() > 80)
            field.type = IntentField::Type::Sha256;
        fields.append(field);
    }
    return fields;
}

} // namespace verity
