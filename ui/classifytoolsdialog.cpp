#include "classifytoolsdialog.h"

#include "accessibletext.h"
#include "domain/toolclasssuggestion.h"
#include "domain/userregistry.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace verity {

namespace {

// A call's arguments or result, whole and never markup: a few lines, scrolled when longer.
QPlainTextEdit *sampleView(const QString &name, QWidget *parent)
{
    auto *view = new QPlainTextEdit(parent);
    view->setObjectName(name);
    view->setReadOnly(true);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    view->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere); // compact JSON has no spaces
    view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view->setFixedHeight(view->fontMetrics().lineSpacing() * 4 + 2 * view->frameWidth() + 8);
    return view;
}

QString fieldTypeWord(IntentField::Type type)
{
    switch (type) {
    case IntentField::Type::String:
        return ClassifyToolsDialog::tr("text");
    case IntentField::Type::Integer:
        return ClassifyToolsDialog::tr("whole number");
    case IntentField::Type::Sha256:
        return ClassifyToolsDialog::tr("long text, hashed");
    case IntentField::Type::Json:
        return ClassifyToolsDialog::tr("list or structure");
    }
    Q_UNREACHABLE();
}

} // namespace

ClassifyToolsDialog::ClassifyToolsDialog(QList<UnclassifiedTool> tools, QWidget *parent)
    : QDialog(parent)
    , m_list(std::move(tools))
{
    setObjectName(QStringLiteral("classifyToolsDialog"));
    setWindowTitle(tr("Classify tools"));
    resize(900, 600);

    m_tools = new QListWidget(this);
    m_tools->setObjectName(QStringLiteral("unclassifiedTools"));
    describeForScreenReaders(m_tools, tr("Tools to classify"),
                             tr("Tools no registry knows, with their calls; choose one to say what it does"));
    m_tools->setWordWrap(true); // a long name, and "inferred: …" on a line of its own, shown whole
    for (const UnclassifiedTool &tool : std::as_const(m_list)) {
        QString text =
                tr("%1  (%2 in %3)")
                        .arg(tool.tool, tool.calls == 1 ? tr("1 call") : tr("%1 calls").arg(tool.calls),
                             tool.tickets == 1 ? tr("1 ticket") : tr("%1 tickets").arg(tool.tickets));
        if (tool.inferredClass != ToolClass::Unclassified)
            text += u'\n' + tr("inferred: %1").arg(toolClassLabel(tool.inferredClass)); // a line of its own
        auto *item = new QListWidgetItem(text);
        item->setData(Qt::UserRole, tool.tool);
        m_tools->addItem(item);
    }

    m_class = new QComboBox(this);
    m_class->setObjectName(QStringLiteral("toolClass"));
    m_class->setPlaceholderText(tr("Choose what it does"));
    for (ToolClass toolClass : {ToolClass::WriteMoney, ToolClass::WriteCostly, ToolClass::WriteIrreversible,
                                ToolClass::WriteWasteful, ToolClass::Read})
        m_class->addItem(toolClassLabel(toolClass), int(toolClass));
    m_class->setCurrentIndex(-1);
    m_class->setAccessibleDescription(
            tr("What the chosen tool does: it decides whether its calls may be retried"));
    m_suggestion = plainTextLabel(QString(), this, false);
    m_suggestion->setObjectName(QStringLiteral("classSuggestion"));
    m_suggestion->setWordWrap(true);
    m_intent = new QListWidget(this);
    m_intent->setObjectName(QStringLiteral("intentFields"));
    describeForScreenReaders(m_intent, tr("Arguments that make one intent"),
                             tr("Check the arguments whose values make two calls the same write"));
    m_intent->setMaximumHeight(m_intent->fontMetrics().lineSpacing() * 6);
    m_amount = new QComboBox(this);
    m_amount->setObjectName(QStringLiteral("amountField"));
    m_amount->setAccessibleDescription(tr("The argument that carries the amount of money, in cents"));
    m_sample = sampleView(QStringLiteral("sampleArguments"), this);
    m_sample->setAccessibleDescription(tr("One stored call's arguments, as JSON"));
    m_sampleResult = sampleView(QStringLiteral("sampleResult"), this);
    m_sampleResult->setAccessibleDescription(tr("That call's result, as JSON"));
    m_status = plainTextLabel(QString(), this);
    m_status->setObjectName(QStringLiteral("classifyStatus"));
    m_status->setAccessibleDescription(tr("What was saved, or what is missing"));
    m_status->setWordWrap(true);

    auto *what = new QVBoxLayout;
    what->setContentsMargins(0, 0, 0, 0);
    what->addWidget(m_class);
    what->addWidget(m_suggestion);
    auto *form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapAllRows); // the fields get the column's whole width
    form->addRow(tr("What the tool does:"), what);
    form->addRow(tr("Arguments that make one intent\n(the same values mean the same write):"), m_intent);
    form->addRow(tr("Argument carrying money, in cents:"), m_amount);
    form->addRow(tr("A call's arguments:"), m_sample);
    form->addRow(tr("Its result:"), m_sampleResult);

    auto *columns = new QHBoxLayout;
    columns->addWidget(m_tools, 1);
    columns->addLayout(form, 2);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_save = buttons->addButton(tr("Save and reclassify"), QDialogButtonBox::ApplyRole);
    m_save->setObjectName(QStringLiteral("saveClassification"));
    m_save->setAccessibleDescription(
            tr("Saves the classification to your registry and reads every stored call "
               "of the tool again"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, &ClassifyToolsDialog::save);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
            plainTextLabel(tr("The registry does not know these tools. Where an agent's telemetry said what "
                              "one is, its calls are judged as that class until you confirm it; the others "
                              "cannot be judged at all. Say what each one is: the choice is saved to your "
                              "registry file and every call of the tool is judged again."),
                           this));
    layout->addLayout(columns, 1);
    layout->addWidget(m_status);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);

    connect(m_tools, &QListWidget::currentRowChanged, this, &ClassifyToolsDialog::showTool);
    connect(m_class, &QComboBox::currentIndexChanged, this, &ClassifyToolsDialog::updateEnabled);
    if (!m_list.isEmpty())
        m_tools->setCurrentRow(0);
    else
        m_status->setText(tr("Every tool in the database is classified."));
    updateEnabled();
}

void ClassifyToolsDialog::showTool(int row)
{
    m_intent->clear();
    m_amount->clear();
    m_amount->addItem(tr("none"), QString());
    if (row < 0 || row >= m_list.size()) {
        m_class->setCurrentIndex(-1);
        m_suggestion->clear();
        m_sample->clear();
        m_sampleResult->clear();
        updateEnabled();
        return;
    }
    const UnclassifiedTool &tool = m_list.at(row);
    m_sample->setPlainText(tool.sampleArguments);
    m_sampleResult->setPlainText(tool.sampleResult.isEmpty() ? tr("(no result recorded)")
                                                             : readableResult(tool.sampleResult));
    const ToolClassSuggestion suggestion = suggestToolClass(tool.sampleArguments, tool.sampleResult);
    if (tool.inferredClass != ToolClass::Unclassified) {
        // Its calls are already judged as this: one click on Confirm makes it the registry's.
        m_class->setCurrentIndex(m_class->findData(int(tool.inferredClass)));
        m_suggestion->setText(tr("Inferred as %1 because %2. Its calls are judged so until you confirm "
                                 "it or choose another.")
                                      .arg(toolClassLabel(tool.inferredClass), tool.inferredBecause));
    } else {
        m_class->setCurrentIndex(suggestion.toolClass ? m_class->findData(int(*suggestion.toolClass)) : -1);
        m_suggestion->setText(
                suggestion.toolClass
                        ? tr("Suggested because %1. Check it before you save.").arg(suggestion.reason)
                        : tr("No suggestion: %1. Choose what the tool does.").arg(suggestion.reason));
    }
    for (const IntentField &field : suggestIntentFields(tool.sampleArguments)) {
        auto *item = new QListWidgetItem(QStringLiteral("%1 (%2)").arg(field.name, fieldTypeWord(field.type)),
                                         m_intent);
        item->setData(Qt::UserRole, field.name);
        item->setData(Qt::UserRole + 1, int(field.type));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        if (field.type == IntentField::Type::Integer)
            m_amount->addItem(field.name, field.name);
    }
    if (const int amount = m_amount->findData(suggestion.amountField); amount > 0)
        m_amount->setCurrentIndex(amount);
    updateEnabled();
}

std::optional<ToolClass> ClassifyToolsDialog::chosenClass() const
{
    if (m_class->currentIndex() < 0)
        return std::nullopt;
    return ToolClass(m_class->currentData().toInt());
}

void ClassifyToolsDialog::updateEnabled()
{
    const std::optional<ToolClass> chosen = chosenClass();
    const bool write = chosen && isWrite(*chosen);
    m_intent->setEnabled(write);
    m_amount->setEnabled(chosen == ToolClass::WriteMoney);
    const int row = m_tools->currentRow();
    m_save->setEnabled(row >= 0 && chosen);
    const bool confirms =
            row >= 0 && row < m_list.size() && chosen && m_list.at(row).inferredClass == *chosen;
    m_save->setText(confirms ? tr("Confirm %1").arg(toolClassLabel(*chosen)) : tr("Save and reclassify"));
}

void ClassifyToolsDialog::save()
{
    const int row = m_tools->currentRow();
    const std::optional<ToolClass> chosen = chosenClass();
    if (row < 0 || row >= m_list.size() || !chosen)
        return;
    ToolSpec spec;
    spec.name = m_list.at(row).tool;
    spec.toolClass = *chosen;
    if (isWrite(spec.toolClass)) {
        for (int i = 0; i < m_intent->count(); ++i) {
            const QListWidgetItem *item = m_intent->item(i);
            if (item->checkState() == Qt::Checked)
                spec.intent.append({item->data(Qt::UserRole).toString(),
                                    IntentField::Type(item->data(Qt::UserRole + 1).toInt())});
        }
        if (spec.intent.isEmpty()) {
            // Without a field every call would share one key; the ticket id at least keeps tickets apart.
            spec.intent.append({QStringLiteral("ticket_id"), IntentField::Type::String});
        }
        if (spec.toolClass == ToolClass::WriteMoney)
            spec.amountField = m_amount->currentData().toString();
    }
    emit classificationChosen(spec);
}

void ClassifyToolsDialog::markClassified(const QString &tool, const QString &message)
{
    for (int i = 0; i < m_list.size(); ++i) {
        if (m_list.at(i).tool == tool) {
            m_list.removeAt(i);
            delete m_tools->takeItem(i);
            break;
        }
    }
    m_status->setStyleSheet(QString());
    m_status->setText(message);
    // The next tool takes the removed one's row, so the row number may not change: shown here,
    // not left to currentRowChanged.
    showTool(m_list.isEmpty() ? -1 : m_tools->currentRow());
}

void ClassifyToolsDialog::showProblem(const QString &message)
{
    m_status->setStyleSheet(theme::status(theme::Tone::Bad, false));
    m_status->setText(message);
}

} // namespace verity
