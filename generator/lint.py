"""Content quality beyond the schema: translations, teaching completeness."""
from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from .model import Course
from .text import Text


@dataclass(frozen=True)
class Finding:
    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


def missing_translations(item: BaseModel, prefix: str = "") -> list[str]:
    """Field paths inside ``item`` whose text has no Chinese translation."""
    found: list[str] = []
    for name in type(item).model_fields:
        _walk(getattr(item, name), f"{prefix}{name}", found)
    return found


def _walk(value, path: str, found: list[str]) -> None:
    if isinstance(value, Text):
        if value.missing():
            found.append(path)
    elif isinstance(value, BaseModel):
        found.extend(missing_translations(value, path + "."))
    elif isinstance(value, (list, tuple)):
        for index, entry in enumerate(value):
            _walk(entry, f"{path}[{index}]", found)


def lint(course: Course) -> list[Finding]:
    findings: list[Finding] = []
    for module in course.modules:
        for field in ("title", "summary"):
            value = getattr(module, field)
            if value is None or value.missing():
                findings.append(Finding(module.module, field, "missing" if value is None else "no zh translation"))
        for section in ("facts", "cards", "questions", "lessons"):
            for item in getattr(module, section):
                where = str(course.where(item.id, section))
                for path in missing_translations(item):
                    findings.append(Finding(where, f"{item.id}.{path}", "no zh translation"))
        for lesson in module.lessons:
            where = str(course.where(lesson.id, "lessons"))
            for field in ("notes", "ask"):
                if getattr(lesson, field) is None:
                    findings.append(Finding(where, f"{lesson.id}.{field}", "a lesson needs speaker notes and a question for the room"))
    return findings
