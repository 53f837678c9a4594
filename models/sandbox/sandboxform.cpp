#include "sandboxform.h"

#include "domain/sha256.h"

#include <QStringList>

#include <algorithm>

namespace verity {

namespace {

const QString metadataPrefix = QStringLiteral("metadata[");

// '+' is a space in form encoding; percent-decoding alone would keep it.
QString decodeFormPart(QByteArray part)
{
    part.replace('+', ' ');
    return QString::fromUtf8(QByteArray::fromPercentEncoding(part));
}

QByteArray netstring(const QString &text)
{
    QByteArray out;
    appendNetstring(out, text.toUtf8());
    return out;
}

} // namespace

std::variant<SandboxForm, SandboxFormError> SandboxForm::parse(const QByteArray &encoded)
{
    SandboxForm form;
    for (const QByteArray &pair : encoded.split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype equals = pair.indexOf('=');
        const QString name = decodeFormPart(equals < 0 ? pair : pair.left(equals));
        const QString value = equals < 0 ? QString() : decodeFormPart(pair.mid(equals + 1));
        if (name.isEmpty())
            return SandboxFormError{
                    QString(), QStringLiteral("A parameter has no name: '%1'.").arg(QString::fromUtf8(pair))};
        if (form.has(name))
            return SandboxFormError{name,
                                    QStringLiteral("The parameter %1 was given more than once.").arg(name)};
        form.m_fields.append({name, value});
    }
    return form;
}

bool SandboxForm::has(const QString &name) const
{
    return std::any_of(m_fields.cbegin(), m_fields.cend(),
                       [&](const auto &field) { return field.first == name; });
}

QString SandboxForm::value(const QString &name) const
{
    for (const auto &[fieldName, fieldValue] : m_fields) {
        if (fieldName == name)
            return fieldValue;
    }
    return {};
}

QMap<QString, QString> SandboxForm::metadata() const
{
    QMap<QString, QString> metadata;
    for (const auto &[name, value] : m_fields) {
        if (name.startsWith(metadataPrefix) && name.endsWith(u']'))
            metadata.insert(name.mid(metadataPrefix.size(), name.size() - metadataPrefix.size() - 1), value);
    }
    return metadata;
}

QString SandboxForm::firstUnknown(const QStringList &known) const
{
    for (const auto &field : m_fields) {
        const QString &name = field.first;
        if (known.contains(name))
            continue;
        if (name.startsWith(metadataPrefix) && name.endsWith(u']'))
            continue;
        return name;
    }
    return {};
}

QString SandboxForm::fingerprint(const QString &method, const QString &path) const
{
    QList<std::pair<QString, QString>> sorted = m_fields;
    std::sort(sorted.begin(), sorted.end());
    QByteArray canonical =
            netstring(QStringLiteral("verity-sandbox-request-v1")) + netstring(method) + netstring(path);
    for (const auto &[name, value] : sorted)
        canonical += netstring(name) + netstring(value);
    return QString::fromLatin1(sha256Hex(canonical));
}

} // namespace verity
