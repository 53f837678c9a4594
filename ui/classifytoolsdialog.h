#pragma once
// Tools the registry did not know, listed after an import: a person says what each one is
// (read, money, costly, irreversible, wasteful), which arguments make one intent, and which
// carries money. The window saves the choice to the user's registry and reads the calls again.
// Each tool starts at what its sample call suggests (suggestToolClass), never at "read": with
// no clue nothing is chosen, and the tool cannot be saved until the person chooses.

#include "domain/toolclass.h"
#include "domain/toolregistry.h"
#include "store/records.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace verity {

class ClassifyToolsDialog : public QDialog
{
    Q_OBJECT

public:
    ClassifyToolsDialog(QList<UnclassifiedTool> tools, QWidget *parent = nullptr);

    // The window calls back: classified and read again, so the tool leaves the list.
    void markClassified(const QString &tool, const QString &message);
    void showProblem(const QString &message);

    QListWidget *toolList() const { return m_tools; }
    QComboBox *classBox() const { return m_class; }
    QListWidget *intentList() const { return m_intent; }
    QComboBox *amountBox() const { return m_amount; }
    QPushButton *saveButton() const { return m_save; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *suggestionLabel() const { return m_suggestion; }

signals:
    void classificationChosen(const verity::ToolSpec &spec);

private:
    std::optional<ToolClass> chosenClass() const; // nullopt until one is chosen
    void showTool(int row);
    void updateEnabled();
    void save();

    QList<UnclassifiedTool> m_list;
    QListWidget *m_tools;
    QComboBox *m_class;
    QListWidget *m_intent;
    QComboBox *m_amount;
    QPlainTextEdit *m_sample;
    QPlainTextEdit *m_sampleResult;
    QLabel *m_suggestion;
    QLabel *m_status;
    QPushButton *m_save;
};

} // namespace verity
